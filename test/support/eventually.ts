/**
 * The one way tests wait for something that happens on its own time (a child process, a socket, a timer):
 * poll, never sleep a fixed time. `probe` answers the value once it is there; `undefined` or `false` means
 * "not yet", and so does a throw when `tolerateThrows` is set (a file that does not exist yet).
 */

export interface EventuallyOptions {
  /** Give up after this long (default 30 s: CI machines are slow and shared). */
  timeoutMs?: number;
  /** Poll this often (default 25 ms). */
  everyMs?: number;
  /** A throwing probe means "not yet" instead of failing at once. */
  tolerateThrows?: boolean;
}

/** Resolves with the first value `probe` gives; rejects naming `what` when `timeoutMs` passes first. */
export async function eventually<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: EventuallyOptions | number = {},
): Promise<T> {
  const {
    timeoutMs = 30_000,
    everyMs = 25,
    tolerateThrows = false,
  } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      if (!tolerateThrows) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
