/**
 * The task runner's core behaviour, written once and run over both adapters of the task port: SQLite
 * (`TaskStore`, answers at once) and PostgreSQL (`PgTasks`, real server, answers later). Time is a manual
 * clock: a retry comes due, and a cancellation is noticed, only when the test moves the clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type TaskOutcome, TaskRunner } from '../../src/dispatch/tasks/runner.ts';
import { type TaskDefinition, TaskError } from '../../src/dispatch/tasks/task.ts';
import { openDatabase } from '../../src/store/database.ts';
import { partitionOf } from '../../src/store/partitions.ts';
import type { Clock } from '../../src/store/ports/clock.ts';
import type { NewTaskRow, TaskPort, TaskRow } from '../../src/store/ports/tasks.ts';
import { openPostgres, PARTITIONS } from '../../src/store/postgres/database.ts';
import { PgLeases } from '../../src/store/postgres/leases.ts';
import { PgTasks } from '../../src/store/postgres/tasks.ts';
import { compensationOf, TaskStore } from '../../src/store/tasks.ts';
import { eventually } from '../support/eventually.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

/** A clock that moves only when told; its timers fire when it passes their time. */
class ManualClock implements Clock {
  time = T0;
  #timers = new Map<number, { at: number; fn: () => void }>();
  #ids = 0;
  now = () => this.time;
  setTimer = (fn: () => void, ms: number) => {
    const id = ++this.#ids;
    this.#timers.set(id, { at: this.time + ms, fn });
    return id;
  };
  clearTimer = (handle: unknown) => {
    this.#timers.delete(handle as number);
  };
  /** Timers waiting for the clock to move. */
  get pending(): number {
    return this.#timers.size;
  }
  advance(ms: number): void {
    this.time += ms;
    for (const [id, t] of [...this.#timers].sort((a, b) => a[1].at - b[1].at))
      if (t.at <= this.time && this.#timers.delete(id)) t.fn();
  }
}

/** What a test needs of one adapter, beside the port: writing rows as a step or a crash would leave them. */
interface Fixture {
  port: TaskPort;
  /** Inserts a task; `running` leaves it as a process that died mid-attempt would. */
  insert(row: NewTaskRow, running?: boolean): Promise<number>;
  row(id: number): Promise<TaskRow>;
  /** The `task_result` events in the inbox: dedupe key and payload. */
  results(): Promise<{ dedupeKey: string; payload: unknown }[]>;
  /** Cancels a task as its step would (compensation inserted when its policy names one). */
  cancel(id: number, now: number): Promise<void>;
  close(): Promise<void>;
}

function sqlite(): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-tasks-'));
  const db = openDatabase({ path: join(dir, 'bot.db'), synchronous: 'NORMAL' });
  const store = new TaskStore(db);
  return {
    port: store,
    async insert(row, running = false) {
      store.insert(row);
      const { id } = db.prepare('SELECT max(id) AS id FROM tasks').get() as { id: number };
      if (running) db.prepare("UPDATE tasks SET status = 'running', attempts = 1 WHERE id = ?").run(id);
      return id;
    },
    async row(id) {
      return store.get(id)!;
    },
    async results() {
      const rows = db
        .prepare("SELECT dedupe_key AS dedupeKey, payload FROM inbox WHERE kind = 'task_result' ORDER BY id")
        .all() as { dedupeKey: string; payload: string }[];
      return rows.map((r) => ({ dedupeKey: r.dedupeKey, payload: JSON.parse(r.payload) as unknown }));
    },
    async cancel(id, now) {
      const row = store.get(id)!;
      store.cancel(row.conversationKey, row.ref, 'the step was left', now);
    },
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgres(): Promise<Fixture> {
  const fresh = await migratedDatabase();
  const pg = await openPostgres({ url: fresh.url });
  const member = 'me';
  const leases = new PgLeases(pg.pool);
  await leases.heartbeat(member, 60_000, {});
  await leases.acquire(
    member,
    Array.from({ length: PARTITIONS }, (_, p) => `partition:${p}`),
    60_000,
  );
  const store = new PgTasks(pg.pool, member);
  const insert = async (row: NewTaskRow, running = false) => {
    const { rows } = await pg.pool.query<{ id: number }>(
      'INSERT INTO tasks (partition, conversation_key, revision, step_instance, name, ref, input, scope, policy, ' +
        'chat_id, idempotency_key, status, attempts, claimed_by, run_after, created_at) VALUES ' +
        '($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING id',
      [
        partitionOf(row.conversationKey),
        row.conversationKey,
        row.revision,
        row.stepInstance,
        row.name,
        row.ref,
        row.input,
        row.scope,
        row.policy,
        row.chatId,
        row.idempotencyKey,
        running ? 'running' : 'pending',
        running ? 1 : 0,
        running ? 'a-process-that-died' : null,
        row.runAfter ?? row.createdAt,
        row.createdAt,
      ],
    );
    return Number(rows[0]!.id);
  };
  return {
    port: store,
    insert,
    async row(id) {
      return (await store.get(id))!;
    },
    async results() {
      const { rows } = await pg.pool.query<{ dedupeKey: string; payload: string }>(
        `SELECT dedupe_key AS "dedupeKey", payload FROM inbox WHERE kind = 'task_result' ORDER BY id`,
      );
      return rows.map((r) => ({ dedupeKey: r.dedupeKey, payload: JSON.parse(r.payload) as unknown }));
    },
    async cancel(id, now) {
      const row = (await store.get(id))!;
      const error = JSON.stringify({ code: 'cancelled', message: 'the step was left' });
      await pg.pool.query(
        "UPDATE tasks SET status = 'cancelled', finished_at = $1, error = $2, claimed_by = NULL WHERE id = $3",
        [now, error, id],
      );
      const compensation = compensationOf(row, now);
      if (compensation) await insert(compensation);
    },
    async close() {
      await pg.close();
      await fresh.drop();
    },
  };
}

const ADAPTERS: [string, () => Promise<Fixture>][] = [
  ['SQLite', async () => sqlite()],
  ...(up ? ([['PostgreSQL', postgres]] as [string, () => Promise<Fixture>][]) : []),
];

function task(id: string, name: string, policy: object = {}): NewTaskRow {
  return {
    conversationKey: 'u:7',
    revision: 1,
    stepInstance: 1,
    name,
    ref: `${id}:task`,
    input: JSON.stringify({ a: 1, b: 2 }),
    scope: JSON.stringify({ vars: {} }),
    policy: JSON.stringify(policy),
    chatId: 7,
    idempotencyKey: `task:u:7:1:${id}`,
    createdAt: T0,
  };
}

describe.each(ADAPTERS)('the task runner over %s', (_name, open) => {
  let fixture: Fixture | undefined;
  let runner: TaskRunner | undefined;
  afterEach(async () => {
    await runner?.stop(0);
    await fixture?.close();
    runner = undefined;
    fixture = undefined;
  });

  async function started(tasks: Record<string, TaskDefinition>) {
    fixture = await open();
    const clock = new ManualClock();
    const outcomes: TaskOutcome[] = [];
    let results = 0;
    runner = new TaskRunner({
      port: fixture.port,
      clock,
      tasks,
      onResult: () => results++,
      onOutcome: (o) => outcomes.push(o),
    });
    return { f: fixture, clock, outcomes, runner, results: () => results };
  }

  it('runs a task; its result reaches the inbox once, with the row settled', async () => {
    const { f, runner, outcomes, results } = await started({
      add: (input) => (input as { a: number; b: number }).a + (input as { a: number; b: number }).b,
    });
    const id = await f.insert(task('1', 'add'));
    runner.start();
    await eventually('the outcome', () => outcomes.length === 1);
    await runner.idle();
    expect(outcomes[0]).toMatchObject({ taskId: id, status: 'done', attempt: 1, result: 3 });
    expect(await f.row(id)).toMatchObject({ status: 'done', attempts: 1, result: '3' });
    expect(await f.results()).toEqual([
      { dedupeKey: `task:${id}`, payload: expect.objectContaining({ taskId: id, ok: true, result: 3 }) },
    ]);
    expect(results()).toBe(1);
  });

  it('tries a retryable failure again when the injected clock says, not before', async () => {
    const attempts: number[] = [];
    const { f, clock, runner, outcomes } = await started({
      flaky: (_input, ctx) => {
        attempts.push(ctx.attempt);
        if (ctx.attempt === 1) throw new TaskError('busy', 'try later', { retryable: true });
        return 'ok';
      },
    });
    const id = await f.insert(task('2', 'flaky', { attempts: 3, backoffMs: 1_000 }));
    runner.start();
    await eventually('the first attempt to be recorded', () => outcomes.length === 1);
    expect(outcomes[0]).toMatchObject({ status: 'retry', error: { code: 'busy' } });
    expect(await f.row(id)).toMatchObject({ status: 'pending', attempts: 1, runAfter: T0 + 1_000 });
    await runner.idle(); // nothing due: the retry waits for the clock
    clock.advance(999);
    await runner.idle();
    expect(attempts).toEqual([1]);
    clock.advance(1);
    await eventually('the second attempt', () => outcomes.length === 2);
    await runner.idle();
    expect(attempts).toEqual([1, 2]);
    expect(outcomes[1]).toMatchObject({ status: 'done', attempt: 2, result: 'ok' });
    expect(await f.row(id)).toMatchObject({ status: 'done', attempts: 2 });
    expect((await f.results()).map((r) => r.dedupeKey)).toEqual([`task:${id}`]);
  });

  it('runs a task left running by a process that died again, with the same key', async () => {
    const runs: { key: string; attempt: number }[] = [];
    const { f, runner, outcomes } = await started({
      add: (_input, ctx) => {
        runs.push({ key: ctx.idempotencyKey, attempt: ctx.attempt });
        return 'again';
      },
    });
    const id = await f.insert(task('3', 'add'), true);
    runner.start();
    await eventually('the outcome', () => outcomes.length === 1);
    await runner.idle();
    expect(runs).toEqual([{ key: 'task:u:7:1:3', attempt: 2 }]);
    expect(await f.row(id)).toMatchObject({ status: 'done', attempts: 2, result: '"again"' });
    expect((await f.results()).map((r) => r.dedupeKey)).toEqual([`task:${id}`]);
  });

  it('aborts a cancelled attempt at the next check; nobody hears of it; on_cancel compensates once', async () => {
    const events: string[] = [];
    let compensatedWith: unknown;
    const { f, clock, runner, outcomes } = await started({
      slow: (_input, ctx) =>
        new Promise((_, reject) => {
          events.push('started');
          ctx.signal.addEventListener('abort', () => {
            events.push('aborted');
            reject(ctx.signal.reason);
          });
        }),
      undo: (_input, ctx) => {
        events.push('compensated');
        compensatedWith = { key: ctx.idempotencyKey, cancelled: ctx.cancelled };
        return null;
      },
    });
    const id = await f.insert(task('4', 'slow', { timeoutMs: 60_000, onCancel: { task: 'undo' } }));
    runner.start();
    await eventually('the attempt to start', () => events.length === 1 && runner.inFlight === 1);
    await f.cancel(id, clock.now());
    // The check that notices it waits on the injected clock: nothing else is left to happen until it moves.
    await eventually('the cancel check to wait on the clock', () => clock.pending > 0);
    expect(events).toEqual(['started']);
    clock.advance(250);
    await eventually('the compensation', () => events.length === 3);
    await runner.idle();
    expect(events).toEqual(['started', 'aborted', 'compensated']);
    expect(outcomes.map((o) => [o.task, o.status])).toEqual([
      ['slow', 'cancelled'],
      ['undo', 'done'],
    ]);
    expect(compensatedWith).toEqual({
      key: 'task:u:7:1:4',
      cancelled: { task: 'slow', input: { a: 1, b: 2 }, attempts: 1 },
    });
    expect(await f.row(id)).toMatchObject({ status: 'cancelled', attempts: 1 });
    // Only the compensation's result goes to the inbox.
    expect((await f.results()).map((r) => r.dedupeKey)).not.toContain(`task:${id}`);
  });
});
