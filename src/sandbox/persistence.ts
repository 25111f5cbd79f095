/**
 * Optional persistence of the sandbox's state in one SQLite file: the whole state as one JSON row,
 * written shortly after each change and on close, read back at start. File contents are not kept.
 */
import type Database from 'better-sqlite3';
import { SQLite } from '../store/sqlite.ts';
import type { PollQueue } from './delivery/poll-queue.ts';
import type { SandboxData } from './state.ts';

/** A SQLite file holding one sandbox's state. */
export class SandboxStore {
  private db: Database.Database;
  private pending: NodeJS.Immediate | undefined;

  constructor(path: string) {
    this.db = new SQLite(path);
    this.db.pragma('journal_mode = WAL');
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS sandbox_state (id INTEGER PRIMARY KEY CHECK (id = 1), data TEXT NOT NULL, poll TEXT NOT NULL)',
    );
  }

  /** The saved state, if any. */
  load(): { data: SandboxData; poll: ReturnType<PollQueue['snapshot']> } | undefined {
    const row = this.db.prepare('SELECT data, poll FROM sandbox_state WHERE id = 1').get() as
      | { data: string; poll: string }
      | undefined;
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
    this.db
      .prepare(
        'INSERT INTO sandbox_state (id, data, poll) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data, poll = excluded.poll',
      )
      .run(JSON.stringify(data), JSON.stringify(poll.snapshot()));
  }

  close(data: SandboxData, poll: PollQueue): void {
    if (this.pending) clearImmediate(this.pending);
    this.pending = undefined;
    this.save(data, poll);
    this.db.close();
  }
}
