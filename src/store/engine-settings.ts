/**
 * The engine's durable settings in the `kv` table (created by 001_inbox): today the secret that signs
 * button payloads, generated once so that keyboards sent before a restart still verify after it.
 */
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';

const BUTTON_SECRET_KEY = 'engine.button_secret';

/** The stored button-signing secret, created (32 random bytes, base64url) on first use. */
export function buttonSecret(db: Database.Database, now: number): string {
  const read = db.prepare<[string], { value: string }>('SELECT value FROM kv WHERE key = ?');
  const existing = read.get(BUTTON_SECRET_KEY);
  if (existing) return existing.value;
  const created = randomBytes(32).toString('base64url');
  // OR IGNORE: another process may create it at the same moment; whoever wrote first wins, read it back.
  db.prepare('INSERT OR IGNORE INTO kv (key, value, updated_at) VALUES (?, ?, ?)').run(
    BUTTON_SECRET_KEY,
    created,
    now,
  );
  return read.get(BUTTON_SECRET_KEY)!.value;
}
