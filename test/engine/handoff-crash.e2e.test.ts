/**
 * A handoff under SIGKILL, end to end (issue 30): a bot process (SQLite with the writer thread, and
 * PostgreSQL) is killed at random moments while two operators race to take requests, replies and the
 * people's messages are relayed both ways, and `/set` + `/done` return each person to the flow. After a
 * last restart has drained the inbox: every relayed message was planned once and in order, one operator won
 * each request, and every person is back in the flow with what the operator set: nothing lost or repeated.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.ts';
import { crashSeed, startChild } from '../crash-load.ts';
import { eventually } from '../support/eventually.ts';
import { freshDatabase, postgresAvailable } from '../support/postgres.ts';
import { botStarted, textMessage } from './fixtures.ts';
import { OPS, opPress, opReply } from './handoff-fixtures.ts';

const FIXTURE = new URL('./fixtures/handoff-child.ts', import.meta.url).pathname;
const PEOPLE = 6;
const KILLS = 4;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-handoff-crash-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const up = await postgresAvailable();

type Rows = { all<T>(sql: string, ...params: unknown[]): Promise<T[]>; close(): Promise<void> };
function rowsOf(target: string): Rows {
  if (!target.startsWith('postgres')) {
    const db = openDatabase({ path: target });
    return {
      all: async <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[],
      close: async () => {
        db.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: target, max: 2 });
  return {
    all: async <T>(sql: string, ...params: unknown[]) => {
      let n = 0;
      const { rows } = await pool.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      );
      return rows.map((r) => ({ ...r, ...(r.n !== undefined ? { n: Number(r.n) } : {}) })) as T[];
    },
    close: () => pool.end(),
  };
}

async function post(port: number, update: object): Promise<boolean> {
  try {
    const res = await request(`http://127.0.0.1:${port}/`, { method: 'POST', body: JSON.stringify(update) });
    await res.body.text();
    return res.statusCode === 200;
  } catch {
    return false; // killed meanwhile: sent again after the restart
  }
}

async function drained(db: Rows): Promise<void> {
  await eventually(
    'the inbox drained',
    async () => {
      const [row] = await db.all<{ n: number }>("SELECT count(*) AS n FROM inbox WHERE status = 'pending'");
      return Number(row!.n) === 0;
    },
    60_000,
  );
}

const argsOf = async (db: Rows, key: string) =>
  (
    await db.all<{ op: string; args: string }>(
      'SELECT op, args FROM outbox WHERE conversation_key = ? ORDER BY id',
      key,
    )
  ).map((r) => ({ op: r.op, args: JSON.parse(r.args) as Record<string, unknown> }));

describe.each(['sqlite', 'postgres'].filter((k) => k === 'sqlite' || up))('over %s', (kind) => {
  it(`hands people over and back, nothing lost or repeated across ${KILLS} SIGKILLs`, {
    timeout: 240_000,
  }, async () => {
    const database = kind === 'postgres' ? await freshDatabase() : undefined;
    const target = database?.url ?? join(dir, 'bot.db');
    const { random } = crashSeed('handoff crash test');
    const now = Date.now();
    // The requests: each person asks (no kill here: the test needs the Take buttons the bot drew).
    let { child, port } = await startChild(FIXTURE, [target]);
    for (let p = 1; p <= PEOPLE; p++) {
      expect(await post(port, botStarted(p, now))).toBe(true);
      expect(await post(port, textMessage(p, now, `question ${p}`))).toBe(true);
    }
    let db = rowsOf(target);
    await drained(db);
    const updates: object[] = [];
    const perPerson: object[][] = [];
    for (let p = 1; p <= PEOPLE; p++) {
      const request = (await argsOf(db, `u:${p}`)).find((r) => r.args.chat_id === OPS)!;
      const take = (request.args.attachments as { payload: { buttons: { payload: string }[][] } }[])[0]!
        .payload.buttons[0]![0]!.payload;
      const replied = { text: String(request.args.text), attachments: request.args.attachments };
      const mine: object[] = [opPress(77, now, take, `mid.req.${p}`), opPress(88, now, take, `mid.req.${p}`)];
      for (let j = 1; j <= 4; j++)
        mine.push(
          opReply(77, now, replied, { text: `op ${p}.${j}` }),
          textMessage(p, now, `person ${p}.${j}`),
        );
      mine.push(
        opReply(77, now, replied, { text: `/set ticket T-${p}` }),
        opReply(77, now, replied, { text: '/done' }),
      );
      perPerson.push(mine);
    }
    // Round robin: the people's handoffs run side by side.
    for (let i = 0; i < perPerson[0]!.length; i++) for (const mine of perPerson) updates.push(mine[i]!);
    await db.close();

    let next = 0;
    for (let kill = 0; kill <= KILLS; kill++) {
      const stopAt =
        kill === KILLS ? updates.length : Math.min(updates.length, next + 3 + Math.floor(random() * 12));
      while (next < stopAt && (await post(port, updates[next]!))) next++;
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      ({ child, port } = await startChild(FIXTURE, [target]));
    }
    expect(next).toBe(updates.length);
    db = rowsOf(target);
    try {
      await drained(db);
      expect(
        await db.all("SELECT status, error, count(*) AS n FROM inbox WHERE status = 'failed' GROUP BY 1, 2"),
      ).toEqual([]);
      for (let p = 1; p <= PEOPLE; p++) {
        const key = `u:${p}`;
        const [session] = await db.all<{ status: string; state: string; snapshot: string }>(
          'SELECT status, state_value AS state, snapshot FROM sessions WHERE conversation_key = ?',
          key,
        );
        expect({ p, status: session!.status, state: session!.state }).toEqual({
          p,
          status: 'done',
          state: '"after"',
        });
        const calls = await argsOf(db, key);
        const toPerson = calls
          .filter((c) => c.op === 'sendMessage' && c.args.chat_id !== OPS)
          .map((c) => c.args.text);
        expect(toPerson.filter((t) => String(t).startsWith('op '))).toEqual(
          [1, 2, 3, 4].map((j) => `op ${p}.${j}`),
        );
        expect(toPerson.at(-1)).toBe(`Back with the bot. Ticket T-${p}.`);
        const relayed = calls
          .filter((c) => c.args.chat_id === OPS && String(c.args.text).includes('person '))
          .map((c) => /person \d+\.\d+/.exec(String(c.args.text))![0]);
        expect(relayed).toEqual([1, 2, 3, 4].map((j) => `person ${p}.${j}`));
        const answers = calls.filter((c) => c.op === 'answerCallback').map((c) => c.args.notification);
        expect(answers).toEqual(['You took it: reply to its messages', 'Already taken by Op77']);
        const [events] = await db.all<{ n: number }>(
          "SELECT count(*) AS n FROM inbox WHERE kind = 'event' AND conversation_key = ?",
          key,
        );
        expect(Number(events!.n)).toBe(2 + 4 + 2);
      }
    } finally {
      child.kill('SIGKILL');
      await db.close();
      await database?.drop();
    }
  });
});
