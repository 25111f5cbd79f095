/**
 * Optional persistence of the sandbox's state in one SQLite file: the whole state as one JSON row,
 * written shortly after each change and on close, read back at start. File contents are not kept.
 */
import { SandboxStateStore } from '../store/sandbox-state.ts';
import type { PollQueue } from './delivery/poll-queue.ts';
import type { SandboxData } from './state.ts';

/** A SQLite file holding one sandbox's state. */
export class SandboxStore {
  private readonly store: SandboxStateStore;
  private pending: NodeJS.Immediate | undefined;

  constructor(path: string) {
    this.store = new SandboxStateStore(path);
  }

  /** The saved state, if any. */
  load(): { data: SandboxData; poll: ReturnType<PollQueue['snapshot']> } | undefined {
    const row = this.store.load();
    return row ? { data: JSON.parse(row.data), poll: JSON.parse(row.poll) } : undefined;
  }

  /** Saves soon (coalescing the changes of one tick). */
  scheduleSave(data: () => SandboxData, poll: PollQueue): void {
    if (this.pending) return;
    this.pending = setImmediate(() => {
      this.pending = undefined;
      this.save(data(), poll);
    });
  }

  save(data: SandboxData, poll: PollQueue): void {
    this.store.save({ data: JSON.stringify(data), poll: JSON.stringify(poll.snapshot()) });
  }

  close(data: SandboxData, poll: PollQueue): void {
    if (this.pending) clearImmediate(this.pending);
    this.pending = undefined;
    this.save(data, poll);
    this.store.close();
  }
}
