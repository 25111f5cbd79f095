/**
 * Hostile webhook bodies, generated from the platform's recorded payloads with a seeded generator (button
 * presses also without their message or chat, as the platform sometimes sends them)
 * (BOTFLOW_CRASH_SEED repeats a run): real HTTP into the receiver, then the engine with the example flows
 * over everything stored. No answer is a 500, nothing crashes, no database error is logged, and every
 * stored row ends handled, or ignored / failed with a reason.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Pool } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.ts';
import { buildWebhook } from '../../src/intake/webhook.ts';
import { loadFlowsOrThrow } from '../../src/testing/flows.ts';
import { crashSeed } from '../crash-load.ts';
import { tempDatabase } from './helpers.ts';

const BODIES = 10_000;
const SECRET = 'fuzz_secret';
const payloads = new URL('../client/fixtures/payloads/', import.meta.url);
const samples = readdirSync(payloads)
  .filter((f) => f.startsWith('webhook.'))
  .map((f) => JSON.parse(readFileSync(new URL(f, payloads), 'utf8')) as Record<string, unknown>);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A body built from a recorded payload by one to three mutations, or raw text that is no update at all. */
function generator(random: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const nested = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  const values = (): Json =>
    pick<() => Json>([
      () => null,
      () => -1,
      () => 1.5,
      () => 2 ** 53 + 1,
      () => -(2 ** 63),
      () => 1e308,
      () => '9007199254740993',
      () => '',
      () => 'x'.repeat(1 + Math.floor(random() * 20_000)),
      () => '\u0000\ud800💥"\\',
      () => [],
      () => ({}),
      () => true,
      () => JSON.parse(nested(1 + Math.floor(random() * 40))) as Json,
    ])();
  /** Every path to a value in the object, so that any field can be hit. */
  const paths = (value: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []) => {
    if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        const path = [...prefix, Array.isArray(value) ? Number(k) : k];
        out.push(path);
        paths(v as Json, path, out);
      }
    }
    return out;
  };
  const set = (root: Json, path: (string | number)[], value: Json | undefined) => {
    let at = root as Record<string | number, Json>;
    for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, Json>;
    const last = path.at(-1)!;
    if (value === undefined) delete at[last];
    else at[last] = value;
  };
  return (): string => {
    const roll = random();
    if (roll < 0.04) return nested(100 + Math.floor(random() * 5_000)); // deep nesting, bare
    if (roll < 0.06)
      return `{"update_type":"message_created","x":${nested(70 + Math.floor(random() * 5_000))}}`;
    if (roll < 0.08) return pick(['', 'null', '[]', '"text"', '{', '{"update_type":', 'not json', '{}']);
    const update = structuredClone(pick(samples)) as Json;
    // Presses as the platform sometimes sends them (the sandbox's callbackVariants): a quarter without
    // their message, a quarter without the message's recipient.chat_id, before any other mutation.
    const callback = update as { update_type?: string; message?: { recipient?: { chat_id?: number } } };
    if (callback.update_type === 'message_callback') {
      const variant = random();
      if (variant < 0.25) delete callback.message;
      else if (variant < 0.5) delete callback.message?.recipient?.chat_id;
      if (variant < 0.5 && random() < 0.5) return JSON.stringify(update); // the variant alone, unmutated
    }
    const mutations = 1 + Math.floor(random() * 3);
    for (let i = 0; i < mutations; i++) {
      const all = paths(update);
      const path = pick(all);
      const what = random();
      if (what < 0.15) set(update, path, undefined);
      else if (what < 0.2)
        set(update, ['update_type'], pick(['message_created', 'bot_started', 'unknown_kind', '']));
      else set(update, path, values());
    }
    const text = JSON.stringify(update);
    return random() < 0.05 ? text.slice(0, Math.floor(random() * text.length)) : text; // truncated
  };
}

const database = tempDatabase();
afterAll(() => database.cleanup());

describe('webhook fuzz', () => {
  it(`${BODIES} hostile bodies: no 500, no crash, no database error, every row settled with a reason`, async () => {
    const { random } = crashSeed('webhook fuzz');
    const next = generator(random);
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino({ level: 'debug' }, sink);
    const app = buildWebhook({ db: database.db, secret: SECRET, logger });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address() as { port: number };
    const pool = new Pool(`http://127.0.0.1:${address.port}`, { connections: 8 });
    const statuses = new Map<number, number>();
    let sent = 0;
    const worker = async () => {
      while (sent < BODIES) {
        sent++;
        const response = await pool.request({
          method: 'POST',
          path: '/webhook',
          headers: { 'content-type': 'application/json', 'x-svc-bot-api-secret': SECRET },
          body: next(),
        });
        await response.body.dump();
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    await pool.close();
    await app.close();

    expect(statuses.get(500) ?? 0).toBe(0);
    expect([...statuses.keys()].every((s) => s === 200 || s === 400 || s === 413)).toBe(true);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(BODIES / 2);

    const engine = createEngine({
      db: database.db,
      flows: await loadFlowsOrThrow('flows'),
      secret: 'fuzz-button-secret-of-enough-length',
      logger,
    });
    for (let round = 0; round < 1_000; round++) if (engine.processPending().length === 0) break;
    await engine.stop({ waitMs: 0 });

    const rows = database.db.prepare('SELECT id, status, error FROM inbox').all() as Array<{
      id: number;
      status: string;
      error: string | null;
    }>;
    expect(rows.length).toBeGreaterThan(BODIES / 4); // many are redeliveries of the same event
    expect(rows.filter((r) => r.status === 'pending')).toEqual([]);
    expect(rows.filter((r) => r.status !== 'done' && !r.error)).toEqual([]);
    const sending = database.db.prepare("SELECT count(*) FROM outbox WHERE status = 'sending'").pluck().get();
    expect(sending).toBe(0);
    const databaseErrors = lines.filter((l) => /SqliteError|SQLITE_[A-Z]/.test(l));
    expect(databaseErrors.slice(0, 3)).toEqual([]);
    const failures = lines.filter((l) => /"level":(50|60)/.test(l));
    expect(failures.slice(0, 3)).toEqual([]);
  }, 120_000);
});
