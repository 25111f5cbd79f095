/**
 * The engine's conformance suite (issue 27): the same tests, with the same assertions, over SQLite and
 * PostgreSQL (test/support/engine-conformance.ts): a dialog, buttons, timers and reminders on the virtual
 * clock, the grace rule, tasks and their retries, the funnel's step log, prune, crash recovery, pinned flow
 * versions and drain(). Where a behaviour cannot be the same, the test says why in one line.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IN_DOUBT_SETTLE_MS } from '../../src/dispatch/dispatcher.ts';
import {
  type Conformance,
  conformanceSchema,
  openConformance,
  type StoreKind,
  T0,
} from '../support/engine-conformance.ts';
import { eventually } from '../support/eventually.ts';
import { postgresAvailable } from '../support/postgres.ts';
import { orderFlows, rebuildOrder, TASKS } from './conformance-flows.ts';
import { botStarted, press, signupFlow, textMessage } from './fixtures.ts';

const up = await postgresAvailable();
// PostgreSQL twice: in the default schema, and in a schema of its own on a shared pool (issue 39: a schema per
// bot), so every statement, function, notification channel and lease of the engine is proven per schema.
const variants: [StoreKind, string][] = [
  ['sqlite', ''],
  ...(up
    ? ([
        ['postgres', ''],
        ['postgres', ' in the schema bot_conformance on a shared pool'],
      ] as [StoreKind, string][])
    : []),
];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let h: Conformance | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Opens the store under test (closed after the test). */
async function open(...args: Parameters<typeof openConformance>): Promise<Conformance> {
  h = await openConformance(...args);
  return h;
}

/** Delivers updates and waits until everything they cause is handled, sent and run. */
async function send(c: Conformance, ...updates: object[]): Promise<void> {
  await c.deliver(...updates);
  await c.settle();
}

/** Person `id` starts the order flow and gives a name: the size menu is up. */
async function reachTheMenu(c: Conformance, id: number, name: string): Promise<void> {
  await send(c, botStarted(id, c.clock.now()));
  await send(c, textMessage(id, c.clock.now(), name));
}

/** The signed payloads of the buttons in the last keyboard planned for `key`, by button text. */
async function keyboard(c: Conformance, key: string): Promise<Record<string, string>> {
  const last = (await c.outbox(key)).filter((r) => Array.isArray(r.args.attachments)).at(-1);
  const out: Record<string, string> = {};
  for (const a of (last?.args.attachments ?? []) as {
    type: string;
    payload: { buttons: { text: string; payload: string }[][] };
  }[])
    if (a.type === 'inline_keyboard') for (const b of a.payload.buttons.flat()) out[b.text] = b.payload;
  return out;
}

describe.each(variants)('the engine over %s%s', (kind, inSchema) => {
  beforeAll(() => conformanceSchema(inSchema ? 'bot_conformance' : undefined));
  afterAll(() => conformanceSchema(undefined));

  it.runIf(kind === 'postgres')('keeps the engine in the schema asked for', async () => {
    const c = await open(kind, () => [signupFlow]);
    await send(c, botStarted(1, c.clock.now()));
    const [where] = await c.rows<{ schema: string; here: number; inPublic: number }>(
      'SELECT current_schema() AS schema, (SELECT count(*)::int FROM sessions) AS here, ' +
        '(SELECT count(*)::int FROM public.sessions) AS "inPublic"',
    );
    expect(where).toEqual(
      inSchema
        ? { schema: 'bot_conformance', here: 1, inPublic: 0 }
        : { schema: 'public', here: 1, inPublic: 1 },
    );
  });

  it('carries a dialog step by step: one session, replies in order, each seen once', async () => {
    const c = await open(kind, () => [signupFlow]);
    await send(c, botStarted(1, c.clock.now()));
    expect(await c.session('u:1')).toMatchObject({
      flowId: 'signup',
      status: 'active',
      stateValue: '"ask_name"',
    });
    await send(c, textMessage(1, c.clock.now(), 'Ann'));
    const menu = await keyboard(c, 'u:1');
    await send(c, press(1, c.clock.now(), menu.Pro!));
    await send(c, textMessage(1, c.clock.now(), 'yes'));
    const said = [
      'What is your name?',
      'Hello Ann! Pick a plan:',
      'Ann on pro. Type yes to finish.',
      'Welcome aboard!',
    ];
    expect(c.platform.seen(1001)).toEqual(said);
    expect(await c.texts('u:1')).toEqual([said[0], said[1], 'Plan: pro', said[2], said[3]]);
    expect(await c.session('u:1')).toMatchObject({ status: 'done' });
    expect((await c.outbox()).every((r) => r.status === 'done' && r.attempts === 1)).toBe(true);
  });

  it('answers a press on a stale keyboard with the policy text and leaves the session where it is', async () => {
    const c = await open(kind, () => [signupFlow]);
    await send(c, botStarted(7, c.clock.now()), textMessage(7, c.clock.now(), 'Ann'));
    const menu = await keyboard(c, 'u:7');
    await send(c, press(7, c.clock.now(), menu.Back!));
    const before = await c.session('u:7');
    expect(before).toMatchObject({ stateValue: '"ask_name"' });
    await send(c, press(7, c.clock.now(), menu.Pro!));
    const answers = (await c.outbox('u:7')).filter((r) => r.op === 'answerCallback').map((r) => r.args);
    expect(answers).toEqual([
      { callback_id: expect.any(String) },
      { callback_id: expect.any(String), notification: 'That menu is old.' },
    ]);
    expect(await c.session('u:7')).toMatchObject({ stateValue: '"ask_name"', revision: before!.revision });
    expect(c.platform.seen(1007)).toEqual([
      'What is your name?',
      'Hello Ann! Pick a plan:',
      'What is your name?',
      'That menu is old.',
    ]);
  });

  it('fires a reminder on the virtual clock, not a millisecond before, then the idle timeout', async () => {
    const c = await open(kind, () => orderFlows());
    await send(c, botStarted(1, c.clock.now()));
    expect(await c.advance(HOUR - 1)).toEqual([]);
    expect(c.platform.seen(1001)).toEqual(['What is your name?']);
    const fired = await c.advance(1);
    expect(fired.map((o) => [o.kind, o.conversationKey, o.status])).toEqual([['timer', 'u:1', 'done']]);
    expect(c.platform.seen(1001)).toEqual(['What is your name?', 'Still there?']);
    await c.advance(23 * HOUR - 1);
    expect(c.platform.seen(1001)).toHaveLength(2);
    await c.advance(1);
    expect(c.platform.seen(1001)).toEqual(['What is your name?', 'Still there?', 'Put aside.', 'Bye.']);
    expect(await c.session('u:1')).toMatchObject({ status: 'done' });
    expect(await c.rows('SELECT name, status FROM timers ORDER BY id')).toEqual([
      { name: 'ask_name:remind:0', status: 'fired' },
      { name: 'ask_name:idle', status: 'fired' },
    ]);
  });

  it('applies the grace rule at start to timers that came due while no engine ran', async () => {
    const grace = { toleranceMs: MINUTE, maxLateMs: 90 * MINUTE, perSecond: 1 };
    const c = await open(kind, () => orderFlows(), { timerGrace: grace });
    await send(c, botStarted(1, c.clock.now()), botStarted(2, c.clock.now()));
    await c.advance(45 * MINUTE);
    const late = [3, 4, 5, 6];
    await send(c, ...late.map((id) => botStarted(id, c.clock.now())));
    // Down for two hours: the first two reminders are 1 h 45 late (expired), the other four 1 h late:
    // spread out at one a second from the start (the restart itself lets a second pass).
    await c.restart({}, () => c.clock.advance(2 * HOUR));
    await c.advance(0);
    const reminded = () => [1, 2, ...late].map((id) => c.platform.seen(1000 + id).includes('Still there?'));
    expect(reminded().filter(Boolean)).toHaveLength(2);
    await c.advance(1000);
    expect(reminded().filter(Boolean)).toHaveLength(3);
    await c.advance(1000);
    expect(reminded()).toEqual([false, false, true, true, true, true]);
    expect(
      await c.rows("SELECT CAST(count(*) AS integer) AS n FROM timers WHERE status = 'expired'"),
    ).toEqual([{ n: 2 }]);
  });

  it('runs a task off its step and retries it when its backoff is over on the virtual clock', async () => {
    const attempts: { attempt: number; at: number; key: string }[] = [];
    const tasks = {
      place_order: (_input: unknown, ctx: { attempt: number; idempotencyKey: string }) => {
        attempts.push({ attempt: ctx.attempt, at: c.clock.now(), key: ctx.idempotencyKey });
        if (ctx.attempt === 1) throw new Error('connection refused');
        return { id: 'A1' };
      },
    };
    const c = await open(kind, () => orderFlows(1, tasks), { tasks });
    await reachTheMenu(c, 1, 'Ann');
    const t = c.clock.now();
    await send(c, press(1, t, (await keyboard(c, 'u:1')).Small!));
    expect(attempts.map((a) => a.attempt)).toEqual([1]);
    await c.advance(10_000 - 1);
    expect(attempts).toHaveLength(1);
    await c.advance(1);
    expect(attempts.map((a) => [a.attempt, a.at - t])).toEqual([
      [1, 0],
      [2, 10_000],
    ]);
    expect(new Set(attempts.map((a) => a.key)).size).toBe(1);
    expect(c.platform.seen(1001).slice(-2)).toEqual(['Ordering…', 'Ordered: A1']);
    expect(await c.rows('SELECT status, CAST(attempts AS integer) AS attempts FROM tasks')).toEqual([
      { status: 'done', attempts: 2 },
    ]);
  });

  it('writes the same funnel step log on both stores', async () => {
    const c = await open(kind, () => orderFlows(), { tasks: TASKS });
    await send(c, botStarted(1, c.clock.now()));
    await c.advance(5 * MINUTE);
    await send(c, textMessage(1, c.clock.now(), 'Ann'));
    await c.advance(MINUTE);
    await send(c, press(1, c.clock.now(), (await keyboard(c, 'u:1')).Large!));
    await send(c, botStarted(2, c.clock.now()));
    const lines = await c.stepLog({ flowId: 'order' });
    const at = (ms: number) => T0 + 1001 + ms; // the harness lets a second pass at start
    expect(lines.map((l) => [l.conversationKey, l.step, l.event, l.at, l.sessionActive])).toEqual([
      ['u:1', 'ask_name', 'enter', at(0), false],
      ['u:1', 'pick', 'enter', at(5 * MINUTE), false],
      ['u:1', 'place', 'enter', at(6 * MINUTE), false],
      ['u:1', 'placed', 'finish', at(6 * MINUTE), false],
      ['u:2', 'ask_name', 'enter', at(6 * MINUTE), true],
    ]);
    expect(await c.stepLog({ since: at(5 * MINUTE) })).toHaveLength(4);
  });

  it('prunes settled calls, timers and tasks past their retention, keeping sessions', async () => {
    const c = await open(kind, () => orderFlows(), { tasks: TASKS });
    await reachTheMenu(c, 1, 'Ann');
    await send(c, press(1, c.clock.now(), (await keyboard(c, 'u:1')).Small!));
    await send(c, botStarted(2, c.clock.now())); // its timers stay armed, its calls are done
    expect(await c.engine.prune()).toEqual({ inbox: 0, outbox: 0, timers: 0, tasks: 0, stepLog: 0 });
    await c.advance(8 * 24 * HOUR); // person 2's reminder and idle timeout fire now
    expect(await c.engine.prune(7 * 24 * HOUR, 24 * HOUR)).toEqual({
      inbox: 5,
      outbox: 6,
      timers: 2,
      tasks: 1,
      stepLog: 5,
    });
    expect(await c.session('u:1')).toMatchObject({ status: 'done' });
    expect(await c.rows('SELECT conversation_key AS k, name, status FROM timers ORDER BY id')).toEqual([
      { k: 'u:2', name: 'ask_name:remind:0', status: 'fired' },
      { k: 'u:2', name: 'ask_name:idle', status: 'fired' },
    ]);
    // Person 2's recent calls are kept (the last of them may still be on its way from the timer's event).
    await eventually('the recent calls kept', async () => (await c.outbox()).length === 3);
    expect(await c.outbox()).toHaveLength(3);
  });

  it('sends a call left `sending` by a stopped engine again from the next one: the person sees it once', async () => {
    const c = await open(kind, () => orderFlows());
    c.platform.stall = 1; // the prompt reaches the person; its answer never comes back
    await c.deliver(botStarted(1, c.clock.now()));
    await eventually('the prompt in flight', async () => (await c.outbox()).at(0)?.status === 'sending');
    await c.restart();
    // A call in doubt is read back once a request its dispatcher made can no longer be on its way.
    await c.advance(IN_DOUBT_SETTLE_MS);
    await c.settle();
    expect(c.platform.seen(1001)).toEqual(['What is your name?']); // found by the read-back, not sent twice
    expect((await c.outbox()).map((r) => [r.status, r.attempts])).toEqual([['done', 2]]);
    await send(c, textMessage(1, c.clock.now(), 'Ann'));
    expect(c.platform.seen(1001)).toEqual(['What is your name?', 'v1: Ann, which size?']);
  });

  it('takes over from an engine that vanished with a call in flight: resent once, seen once', async () => {
    const c = await open(kind, () => orderFlows());
    c.platform.stall = 1; // the prompt reaches the person; the process is gone before the answer comes
    await c.deliver(botStarted(1, c.clock.now()));
    await eventually('the prompt in flight', async () => (await c.outbox()).at(0)?.status === 'sending');
    await c.vanish();
    await c.advance(IN_DOUBT_SETTLE_MS);
    await c.settle();
    expect(c.platform.seen(1001)).toEqual(['What is your name?']);
    expect((await c.outbox()).map((r) => [r.status, r.attempts])).toEqual([['done', 2]]);
    await send(c, textMessage(1, c.clock.now(), 'Ann'));
    expect(c.platform.seen(1001)).toEqual(['What is your name?', 'v1: Ann, which size?']);
  });

  it('handles once what an engine that vanished mid-batch left, whatever it had committed', async () => {
    const c = await open(kind, () => orderFlows());
    const people = [1, 2, 3];
    await c.deliver(...people.map((id) => botStarted(id, c.clock.now())));
    await c.deliver(...people.map((id) => textMessage(id, c.clock.now(), `N${id}`)));
    await c.vanish(); // at once: its batch may be planned, committing or committed (SQLite commits at once)
    await c.advance(IN_DOUBT_SETTLE_MS); // a call it left in flight settles before its read-back
    await c.settle();
    for (const id of people)
      expect(c.platform.seen(1000 + id)).toEqual(['What is your name?', `v1: N${id}, which size?`]);
    expect(await c.rows('SELECT DISTINCT status FROM inbox')).toEqual([{ status: 'done' }]);
  });

  it('runs a task a stopped engine left running again in the next one, with the same key, once', async () => {
    const keys: string[] = [];
    const tasks = {
      place_order: (_input: unknown, ctx: { idempotencyKey: string; signal: AbortSignal }) => {
        keys.push(ctx.idempotencyKey);
        if (keys.length > 1) return { id: 'A1' };
        return new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        );
      },
    };
    const c = await open(kind, () => orderFlows(1, tasks), { tasks });
    await reachTheMenu(c, 1, 'Ann');
    await c.deliver(press(1, c.clock.now(), (await keyboard(c, 'u:1')).Small!));
    await eventually('the task running', () => keys.length === 1);
    await c.restart();
    await c.advance(IN_DOUBT_SETTLE_MS); // a call it left in flight settles before its read-back
    await c.settle();
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(c.platform.seen(1001).slice(-2)).toEqual(['Ordering…', 'Ordered: A1']);
    expect(await c.rows('SELECT status FROM tasks')).toEqual([{ status: 'done' }]);
  });

  it('handles the updates a stopped engine left in the inbox once, in the next engine', async () => {
    const c = await open(kind, () => orderFlows());
    await c.deliver(botStarted(1, c.clock.now()), textMessage(1, c.clock.now(), 'Ann'));
    await c.restart(); // at once: none, some or all of them handled and committed by the first engine
    await c.advance(IN_DOUBT_SETTLE_MS); // a call it left in flight settles before its read-back
    await c.settle();
    expect(c.platform.seen(1001)).toEqual(['What is your name?', 'v1: Ann, which size?']);
    expect(await c.rows('SELECT kind, status FROM inbox ORDER BY id')).toEqual([
      { kind: 'update', status: 'done' },
      { kind: 'update', status: 'done' },
    ]);
  });

  it('goes on with a session pinned to a version the next engine lacks, rebuilt from its stored source', async () => {
    const c = await open(kind, () => orderFlows(1));
    await send(c, botStarted(1, c.clock.now()));
    await c.restart({ flows: orderFlows(2, TASKS, 'Your name, please?'), rebuildFlow: rebuildOrder() });
    await send(c, textMessage(1, c.clock.now(), 'Ann'), botStarted(2, c.clock.now()));
    expect(c.platform.seen(1001)).toEqual(['What is your name?', 'v1: Ann, which size?']);
    expect(c.platform.seen(1002)).toEqual(['Your name, please?']);
    expect(await c.engine.store.pinnedVersions()).toEqual([
      { flowId: 'order', flowVersion: expect.stringMatching(/^1-/), n: 1 },
      { flowId: 'order', flowVersion: expect.stringMatching(/^2-/), n: 1 },
    ]);
  });

  it('drain() returns once every update is handled, every call answered and every task run', async () => {
    const c = await open(kind, () => orderFlows(), { tasks: TASKS });
    const people = [1, 2, 3, 4, 5, 6];
    await c.deliver(...people.map((id) => botStarted(id, c.clock.now())));
    await c.deliver(...people.map((id) => textMessage(id, c.clock.now(), `N${id}`)));
    await c.engine.drain();
    const presses = await Promise.all(
      people.map(async (id) => press(id, c.clock.now(), (await keyboard(c, `u:${id}`)).Small!)),
    );
    await c.deliver(...presses);
    await c.engine.drain();
    for (const id of people)
      expect(c.platform.seen(1000 + id)).toEqual([
        'What is your name?',
        `v1: N${id}, which size?`,
        'Ordering…',
        'Ordered: A1',
      ]);
    expect(await c.rows("SELECT CAST(count(*) AS integer) AS n FROM inbox WHERE status = 'pending'")).toEqual(
      [{ n: 0 }],
    );
    expect(
      await c.rows('SELECT DISTINCT status FROM outbox UNION ALL SELECT DISTINCT status FROM tasks'),
    ).toEqual([{ status: 'done' }, { status: 'done' }]);
  });
});
