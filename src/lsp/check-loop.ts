/**
 * One check at a time, the latest texts winning: changes that arrive while a check runs (or waits for the
 * registry to load) are checked together by the next one. No timer: a check starts as soon as the changes
 * already received have been applied.
 */
export class CheckLoop {
  #checking = false;
  #pending = false;

  constructor(
    /** Checks the project and publishes what it found. */
    private readonly run: () => void,
    /** Settles when the registry being loaded (if any) has loaded; a new promise after each reload. */
    private readonly registryLoaded: () => Promise<void>,
    private readonly log: (message: string) => void,
  ) {}

  /** Asks for a check of the project as it is now. */
  request(): void {
    this.#pending = true;
    if (!this.#checking) void this.#loop();
  }

  async #loop(): Promise<void> {
    this.#checking = true;
    try {
      while (this.#pending) {
        const registry = this.registryLoaded();
        await registry;
        // Let the changes already received be applied first: the latest texts are checked.
        await new Promise((resolve) => setImmediate(resolve));
        // The registry's code was saved meanwhile: check once it is loaded again.
        if (registry !== this.registryLoaded()) continue;
        this.#pending = false;
        this.run();
      }
    } catch (error) {
      this.log(`botflow lsp: the check failed: ${(error as Error).stack ?? error}`);
    } finally {
      this.#checking = false;
    }
  }
}
