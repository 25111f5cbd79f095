import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase } from '../../src/store/database.ts';
import { InboxStore } from '../../src/store/inbox.ts';

const payloads = new URL('../client/fixtures/payloads/', import.meta.url);

/** The raw text of a recorded webhook delivery from the real platform. */
export function webhookPayload(type: string): string {
  return readFileSync(new URL(`webhook.${type}.json`, payloads), 'utf8');
}

/** A fresh database file in its own temp folder; `cleanup()` closes and removes it. */
export function tempDatabase(): {
  dir: string;
  path: string;
  db: Database.Database;
  inbox: InboxStore;
  cleanup(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-intake-'));
  const path = join(dir, 'bot.db');
  const db = openDatabase({ path });
  return {
    dir,
    path,
    db,
    inbox: new InboxStore(db),
    cleanup() {
      if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
