/**
 * The sandbox's own file (never a bot's database): the emulated platform's whole state as one JSON row,
 * so `botflow sandbox --db` keeps people, chats and messages across restarts.
 */
import type Database from 'better-sqlite3';
import { SQLite } from './sqlite.ts';

/** The state as stored: the sandbox's data and its long-polling queue, each as JSON text. */
export interface StoredSandboxState {
  data: string;
  poll: string;
}

/** One SQLite file holding one sandbox's state. */
export class SandboxStateStore {
  readonly #db: Database.Database;
  readonly #save: Database.Statement<[string, string]>;

  constructor(path: string) {
    this.#db = new SQLite(path);
    this.#db.pragma('journal_mode = WAL');
    this.#db.exec(
      'CREATE TABLE IF NOT EXISTS sandbox_state (id INTEGER PRIMARY KEY CHECK (id = 1), data TEXT NOT NULL, poll TEXT NOT NULL)',
    );
    this.#save = this.#db.prepare(
      'INSERT INTO sandbox_state (id, data, poll) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data, poll = excluded.poll',
    );
  }

  /** The saved state, if any. */
  load(): StoredSandboxState | undefined {
    return this.#db.prepare('SELECT data, poll FROM sandbox_state WHERE id = 1').get() as
      | StoredSandboxState
      | undefined;
  }

  save(state: StoredSandboxState): void {
    this.#save.run(state.data, state.poll);
  }

  close(): void {
    this.#db.close();
  }
}
