/**
 * Optional persistence of the sandbox's state in one SQLite file: the whole state as one JSON row,
 * written shortly after each change and on close, read back at start. File contents are not kept.
 */
import { SandboxStateStore } from '../store/sandbox-state.ts';
import type { PollSnapshot, SavedBot } from './bots.ts';
import type { PollQueue } from './delivery/poll-queue.ts';
import type { SandboxData } from './state.ts';

/** What is saved: the default bot's data (with the shared people and counters), its queue, the other bots. */
export interface SavedState {
  data: SandboxData;
  poll: PollQueue | PollSnapshot;
  bots?: SavedBot[];
}

/** A SQLite file holding one sandbox's state. */
export class SandboxStore {
  private readonly store: SandboxStateStore;
  private pending: NodeJS.Immediate | undefined;

  constructor(path: string) {
    this.store = new SandboxStateStore(path);
  }

  /** The saved state, if any (a file saved before the sandbox hosted several bots has no `bots`). */
  load(): { data: SandboxData; poll: PollSnapshot; bots: SavedBot[] } | undefined {
    const row = this.store.load();
    if (!row) return undefined;
    const { bots, ...data } = JSON.parse(row.data) as SandboxData & { bots?: SavedBot[] };
    return { data, poll: JSON.parse(row.poll), bots: bots ?? [] };
  }

  /** Saves soon (coalescing the changes of one tick). */
  scheduleSave(state: () => SavedState): void {
    if (this.pending) return;
    this.pending = setImmediate(() => {
      this.pending = undefined;
      this.save(state());
    });
  }

  /** Tokens are not saved: the sandbox makes new ones at each start unless they are given again. */
  save(state: SavedState): void {
    const poll = 'snapshot' in state.poll ? state.poll.snapshot() : state.poll;
    const data = state.bots?.length ? { ...state.data, bots: state.bots } : state.data;
    this.store.save({ data: JSON.stringify(data), poll: JSON.stringify(poll) });
  }

  close(state: SavedState): void {
    if (this.pending) clearImmediate(this.pending);
    this.pending = undefined;
    this.save(state);
    this.store.close();
  }
}
