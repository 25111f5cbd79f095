/**
 * The support API (`engine.sessions`) and the side panel's routes over both databases: the same tests on
 * SQLite (in memory) and on PostgreSQL (a fresh database), each with a started engine running the example
 * flows. A conversation's view, the playground's clock (timers moved, one fired now), a jump, a reset, the
 * versions page and the funnel read the same on both.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.ts';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { loadFlows } from '../../src/flows/load.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { type InspectedEngine, Inspector } from '../../src/runtime/inspector.ts';
import { openDatabase } from '../../src/store/database.ts';
import { type InboxEntry, InboxStore } from '../../src/store/inbox.ts';
import { partitionOf } from '../../src/store/partitions.ts';
import { openPostgres } from '../../src/store/postgres/database.ts';
import { postgresStore } from '../../src/store/postgres/engine-store.ts';
import { PgInbox } from '../../src/store/postgres/inbox.ts';
import { eventually } from '../support/eventually.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const pgUp = await postgresAvailable();
let flows: FlowDefinition[];
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  flows = (await loadFlows('flows')).flows;
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Running {
  engine: Engine<boolean>;
  append(entries: InboxEntry[]): Promise<void>;
}

/** A started engine over a fresh database of `kind`. */
async function running(kind: 'sqlite' | 'postgres'): Promise<Running> {
  const secret = 'inspector-stores-secret-0123';
  if (kind === 'sqlite') {
    const db = openDatabase({ path: ':memory:' });
    const engine = createEngine({ db, flows, secret, pollIntervalMs: 50 });
    engine.start();
    cleanups.push(async () => {
      await engine.stop({ waitMs: 500 });
      db.close();
    });
    return {
      engine,
      async append(entries) {
        new InboxStore(db).append(entries);
        engine.notify();
      },
    };
  }
  const database = await migratedDatabase();
  const pg = await openPostgres({ url: database.url });
  const engine = createEngine({ store: postgresStore(pg), flows, secret, pollIntervalMs: 50, tickMs: 200 });
  await engine.start();
  cleanups.push(async () => {
    await engine.stop({ waitMs: 500 });
    await pg.close();
    await database.drop();
  });
  return {
    engine,
    async append(entries) {
      await new PgInbox(pg.pool).append(entries);
      engine.notify();
    },
  };
}

/** Person 7 (Ann) presses Start in chat 5. */
const annStarts = () =>
  updateEntry(
    JSON.stringify({
      update_type: 'bot_started',
      timestamp: Date.now(),
      chat_id: 5,
      user: { user_id: 7, first_name: 'Ann', is_bot: false, last_activity_time: Date.now(), name: 'Ann' },
      user_locale: 'en',
    }),
  );

async function panel(kind: 'sqlite' | 'postgres') {
  const bot = await running(kind);
  const inspector = new Inspector();
  const app: FastifyInstance = Fastify();
  await app.register(inspector.plugin);
  cleanups.push(() => app.close());
  inspector.attach({ engine: bot.engine, flows, problems: [] });
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.json() };
  };
  const post = async (url: string, payload: object) => {
    const res = await app.inject({ method: 'POST', url, payload });
    return { status: res.statusCode, body: res.json() };
  };
  const conversation = async () => (await get('/_inspector/conversation?user_id=7')).body;
  /** Waits until the conversation's view satisfies `ready`. */
  const until = (what: string, ready: (view: Awaited<ReturnType<typeof conversation>>) => boolean) =>
    eventually(what, async () => {
      const view = await conversation();
      return ready(view) ? view : undefined;
    });
  return { ...bot, inspector, get, post, conversation, until };
}

const STORES = (['sqlite', 'postgres'] as const).filter((kind) => kind === 'sqlite' || pgUp);

describe.each(STORES)('the support API and the side panel on %s', (kind) => {
  it("shows a person's conversation, lists sessions and ends one", async () => {
    const p = await panel(kind);
    expect(await p.conversation()).toMatchObject({ key: 'u:7', session: null, history: [] });
    await p.append([annStarts()]);
    const view = await p.until('Ann is asked her name', (v) => v.session?.step?.[0] === 'ask_name');
    expect(view.session).toMatchObject({ flowId: 'signup', status: 'active', revision: 1 });
    expect(view.timers.map((t: { name: string }) => t.name).join(' ')).toContain('ask_name');
    expect(view.history).toMatchObject([{ summary: 'bot started', status: 'done' }]);

    const sessions = p.engine.sessions;
    expect(await sessions.list()).toMatchObject([{ conversationKey: 'u:7', step: 'ask_name' }]);
    expect(await sessions.list({ status: 'done' })).toEqual([]);
    const detail = await sessions.get('u:7');
    expect(detail).toMatchObject({ chatId: 5, userId: 7, status: 'active', step: 'ask_name' });
    expect(detail!.calls[0]).toMatchObject({ op: 'sendMessage' });
    expect((await sessions.history('u:7'))[0]).toMatchObject({ kind: 'update', updateType: 'bot_started' });
    expect(await sessions.get('u:404')).toBeUndefined();

    expect(await p.post('/_inspector/reset', { user_id: 7 })).toEqual({ status: 200, body: { ended: true } });
    expect(await sessions.end('u:7')).toBe(false);
    const ended = await sessions.get('u:7');
    expect(ended).toMatchObject({ status: 'stopped', revision: 2, timers: [] });
  });

  it('never shows a step without the event that made it, done, whatever commits between its reads', async () => {
    const p = await panel(kind);
    const sessions = p.engine.sessions;
    // Ann's Start is committed right after the view's first read of the store, whichever read that is.
    let committed = false;
    const thenCommit = async <T>(value: T): Promise<T> => {
      if (committed) return value;
      committed = true;
      await p.append([annStarts()]);
      await eventually('Ann at ask_name', async () => (await sessions.get('u:7'))?.step === 'ask_name');
      return value;
    };
    const inspector = new Inspector();
    const engine = {
      on: p.engine.on.bind(p.engine),
      sessions: {
        get: async (key: string) => thenCommit(await sessions.get(key)),
        history: async (key: string, options: { limit: number }) =>
          thenCommit(await sessions.history(key, options)),
      },
    } as unknown as InspectedEngine;
    inspector.attach({ engine, flows, problems: [] });
    const view = await inspector.conversation('u:7');
    expect(committed).toBe(true);
    // A step shown comes with the event that made it, done; else no step at all.
    expect({ step: view.session?.step, history: view.history }).toMatchObject(
      view.session
        ? { step: ['ask_name'], history: [{ summary: 'bot started', status: 'done' }] }
        : { step: undefined },
    );
  });

  it("moves a conversation's timers for the playground's clock, and fires one now", async () => {
    const p = await panel(kind);
    await p.append([annStarts()]);
    type Timer = { id: number; name: string; fireAt: number };
    const before = (await p.until('timers armed', (v) => v.timers.length > 1)).timers as Timer[];
    expect(await p.post('/_inspector/timers/advance', { user_id: 7, ms: 60_000 })).toEqual({
      status: 200,
      body: { moved: before.length },
    });
    for (const t of (await p.conversation()).timers as Timer[])
      expect(t.fireAt).toBe(before.find((b) => b.id === t.id)!.fireAt - 60_000);

    const remind = before.find((t) => t.name.includes('remind'))!;
    expect((await p.post('/_inspector/timers/fire', { user_id: 8, timer_id: remind.id })).status).toBe(404);
    expect(await p.post('/_inspector/timers/fire', { user_id: 7, timer_id: remind.id })).toEqual({
      status: 200,
      body: { fired: true },
    });
    // The running engine fires it at once and handles it: the reminder is sent, the timer is gone.
    const after = await p.until('the reminder fired', (v) =>
      v.history.some((e: { kind: string; status: string }) => e.kind === 'timer' && e.status === 'done'),
    );
    expect(after.timers.map((t: Timer) => t.id)).not.toContain(remind.id);
    // A day passes: every timer of the conversation comes due and fires.
    await p.post('/_inspector/timers/advance', { user_id: 7, ms: 86_400_000 });
    await p.until('a day passed', (v) => v.timers.every((t: Timer) => t.fireAt > Date.now() + 60_000));
  });

  it('jumps a conversation to a step with chosen variables: the prompt is sent and reminders armed', async () => {
    const p = await panel(kind);
    const vars = { name: 'Ann', age: 30, email: 'ann@example.org' };
    const jump = { user_id: 7, chat_id: 5, flow: 'signup', vars };
    expect(await p.post('/_inspector/jump', { ...jump, step: 'nowhere' })).toMatchObject({
      status: 404,
      body: { message: expect.stringContaining('no step "nowhere"') },
    });
    expect(await p.post('/_inspector/jump', { ...jump, step: 'confirm' })).toEqual({
      status: 200,
      body: { jumped: true },
    });
    const view = await p.until('Ann is on confirm', (v) => v.timers.length > 0);
    expect(view.session).toMatchObject({ flowId: 'signup', status: 'active', step: ['confirm'] });
    expect(view.session.context.vars).toEqual(vars);
    expect(view.timers.map((t: { name: string }) => t.name)).toEqual(['confirm:remind:0']);
    const calls = (await p.engine.sessions.get('u:7'))!.calls;
    expect(calls.map((c) => c.op)).toContain('sendMessage');
    // The funnel counts the jump as a session of its own, entered at that step.
    const lines = [];
    for await (const line of p.engine.sessions.stepLog({ flowId: 'signup' })) lines.push(line);
    expect(lines).toEqual([
      expect.objectContaining({ conversationKey: 'u:7', step: 'confirm', event: 'enter' }),
    ]);
    // A second jump ends what ran: the old reminder is cancelled, the session numbered on.
    await p.post('/_inspector/jump', { ...jump, step: 'ask_email' });
    const again = await p.until('Ann is on ask_email', (v) => v.session.step[0] === 'ask_email');
    expect(again.timers.map((t: { name: string }) => t.name)).not.toContain('confirm:remind:0');
  });

  it('answers the versions page and the funnel, and says which database runs it', async () => {
    const p = await panel(kind);
    await p.append([annStarts()]);
    await p.until('Ann is asked her name', (v) => v.session !== null);
    expect((await p.get('/_inspector/plan?format=json')).body).toMatchObject([
      { flowId: 'signup', sessions: 1, outcome: 'current' },
    ]);
    const funnel = await p.get('/_inspector/funnel?flow=signup&format=json');
    expect(funnel.body[0].steps[0]).toMatchObject({ step: 'ask_name', reached: 1, waiting: 1 });
    const state = (await p.get('/_inspector/state')).body;
    expect(state.ready).toBe(true);
    if (kind === 'postgres')
      expect(state.cluster).toMatchObject({ member: p.engine.member, partitions: 64, dispatcher: true });
    else expect(state.cluster).toBeUndefined();
    expect((await p.get('/_inspector/dead-letters')).body).toEqual({ deadLetters: [] });
  });
});

describe.skipIf(!pgUp)('the playground clock among several instances on PostgreSQL', () => {
  it("moves a conversation's timers from an instance that does not own it: the owner fires them", async () => {
    const database = await migratedDatabase();
    const pools = [await openPostgres({ url: database.url }), await openPostgres({ url: database.url })];
    const engines = pools.map((pg, i) =>
      createEngine({
        store: postgresStore(pg),
        flows,
        secret: 'inspector-stores-secret-0123',
        member: `instance-${i}`,
        pollIntervalMs: 5_000,
        tickMs: 200,
        leaseMs: 1_000,
      }),
    );
    cleanups.push(async () => {
      for (const engine of engines) await engine.stop({ waitMs: 500 });
      for (const pg of pools) await pg.close();
      await database.drop();
    });
    for (const engine of engines) await engine.start();
    const ann = partitionOf('u:7');
    const [owner, other] = await eventually('the instances share the partitions', () => {
      const held = engines.map((e) => e.role().partitions);
      if (held[0]!.length === 0 || held[1]!.length === 0 || held[0]!.length + held[1]!.length !== 64)
        return undefined;
      return held[0]!.includes(ann) ? [engines[0]!, engines[1]!] : [engines[1]!, engines[0]!];
    });
    await new PgInbox(pools[0]!.pool).append([annStarts()]);
    const armed = await eventually('Ann is asked her name', async () => {
      const detail = await other!.sessions.get('u:7');
      return detail && detail.timers.length > 1 ? detail.timers : undefined;
    });
    // An hour passes for Ann, asked of the instance that does not own her conversation: the owner hears
    // of it at once (not at its next poll, 5 s away) and fires the reminder.
    expect(await other!.sessions.advanceTimers('u:7', 3_600_000)).toBe(armed.length);
    await eventually(
      'the owner fires the reminder',
      async () => {
        const history = await owner!.sessions.history('u:7');
        return history.some((e) => e.kind === 'timer' && e.status === 'done');
      },
      3_000,
    );
  });
});
