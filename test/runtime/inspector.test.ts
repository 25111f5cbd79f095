/**
 * The side panel's API (src/runtime/inspector.ts) over a real engine (SQLite in memory) running the
 * example flows: what the page reads for a conversation, the flow graphs, reload problems and the event
 * stream. The page drawing it is covered by playground.test.ts.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.ts';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { loadFlows } from '../../src/flows/load.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { describeEvent, Inspector, panelGraph } from '../../src/runtime/inspector.ts';
import { openDatabase } from '../../src/store/database.ts';
import { InboxStore } from '../../src/store/inbox.ts';
import { OutboxStore } from '../../src/store/outbox.ts';

let flows: FlowDefinition[];
const open: { app: FastifyInstance; engine?: Engine }[] = [];

beforeAll(async () => {
  const loaded = await loadFlows('flows');
  expect(loaded.problems.filter((p) => p.severity === 'error')).toEqual([]);
  flows = loaded.flows;
});

afterEach(async () => {
  for (const { app, engine } of open.splice(0)) {
    await engine?.stop({ waitMs: 1_000 });
    await app.close();
  }
});

async function panelServer() {
  const inspector = new Inspector();
  const app = Fastify();
  await app.register(inspector.plugin);
  const db = openDatabase({ path: ':memory:' });
  const engine = createEngine({ db, flows, secret: 'inspector-test-secret-0123' });
  open.push({ app, engine });
  return { inspector, app, db, engine };
}

const get = async (app: FastifyInstance, url: string) => {
  const res = await app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.json() };
};

/** Person 7 (Ann) presses Start in chat 5, as intake stores it. */
function annStarts(db: ConstructorParameters<typeof InboxStore>[0], payload?: string): void {
  const update = {
    update_type: 'bot_started',
    timestamp: Date.now(),
    chat_id: 5,
    user: { user_id: 7, first_name: 'Ann', is_bot: false, last_activity_time: Date.now(), name: 'Ann' },
    ...(payload ? { payload } : {}),
    user_locale: 'en',
  };
  new InboxStore(db).append([updateEntry(JSON.stringify(update))]);
}

describe('the inspector API', () => {
  it('draws the sign-up flow in step order, without the return plumbing of calls', () => {
    const inspector = new Inspector();
    inspector.setFlows(flows, []);
    const graph = inspector.state().flows.find((f) => f.id === 'signup')!.graph;
    expect(graph.initial).toBe('ask_name');
    expect(graph.nodes.map((n) => n.id)).toEqual([
      'ask_name',
      'ask_age',
      'ask_email',
      'confirm',
      'minor',
      'done',
      'cancelled',
      'abandoned',
      '__call_help',
    ]);
    expect(graph.nodes.find((n) => n.id === '__call_help')).toMatchObject({ compound: true });
    expect(graph.nodes.find((n) => n.id === 'cancelled')).toMatchObject({
      final: true,
      note: 'reachable by /cancel from any step',
    });
    expect(graph.edges).toContainEqual({ from: 'confirm', to: 'ask_age', label: 'button edit_age' });
    expect(graph.edges.some((e) => e.from === '__return' || e.to === '__return')).toBe(false);
  });

  it("draws the diagram's top level, nested blocks belonging to their state", () => {
    const graph = panelGraph(
      [
        { kind: 'initial', to: 'a' },
        { kind: 'final', state: 'b' },
        {
          kind: 'block',
          state: 'b',
          items: [
            { kind: 'initial', to: 'x' },
            { kind: 'edge', from: 'x', to: 'y', label: '' },
          ],
        },
        { kind: 'edge', from: 'a', to: 'b', label: 'go' },
        { kind: 'edge', from: 'b', to: '__return', label: '' },
      ],
      ['b', 'a'],
    );
    expect(graph).toEqual({
      initial: 'a',
      nodes: [
        { id: 'b', final: true, compound: true },
        { id: 'a', final: false, compound: false },
      ],
      edges: [{ from: 'a', to: 'b', label: 'go' }],
    });
  });

  it("shows a person's conversation: flow, step, context, timers and history", async () => {
    const { inspector, app, db, engine } = await panelServer();
    expect((await get(app, '/_inspector/state')).body).toMatchObject({ ready: false, flows: [] });
    inspector.attach({ engine, flows, problems: [] });
    expect((await get(app, '/_inspector/conversation?user_id=7')).body).toMatchObject({
      key: 'u:7',
      session: null,
      history: [],
    });

    annStarts(db, 'from-readme');
    engine.processPending();

    const { status, body } = await get(app, '/_inspector/conversation?user_id=7');
    expect(status).toBe(200);
    expect(body.session).toMatchObject({ flowId: 'signup', status: 'active', step: ['ask_name'] });
    expect(body.session.context.vars).toMatchObject({ start_payload: 'from-readme' });
    expect(body.timers.map((t: { name: string }) => t.name).join(' ')).toContain('ask_name');
    expect(body.history).toMatchObject([{ summary: 'bot started (payload from-readme)', status: 'done' }]);
    expect((await get(app, '/_inspector/conversation?key=u:7')).body.session.flowId).toBe('signup');
  });

  it('answers the funnel and the running versions as JSON, and says what is wrong with a request', async () => {
    const { inspector, app, db, engine } = await panelServer();
    expect((await get(app, '/_inspector/funnel?format=json')).status).toBe(503);
    expect((await get(app, '/_inspector/plan?format=json')).status).toBe(503);
    inspector.attach({ engine, flows, problems: [] });
    annStarts(db);
    engine.processPending();
    const funnel = await get(app, '/_inspector/funnel?flow=signup&format=json');
    expect(funnel.body).toMatchObject([{ flowId: 'signup', sessions: 1, ended: 0 }]);
    expect(funnel.body[0].steps[0]).toMatchObject({ step: 'ask_name', reached: 1, waiting: 1 });
    expect(await get(app, '/_inspector/funnel?flow=nope')).toEqual({
      status: 404,
      body: {
        code: 'flow.not.found',
        message: expect.stringMatching(/^no flow "nope" here \(flows: .*signup/),
      },
    });
    expect((await get(app, '/_inspector/funnel?days=-1')).body.message).toBe(
      'days must be a number above 0, got "-1"',
    );
    expect((await get(app, '/_inspector/plan?format=json')).body).toMatchObject([
      { flowId: 'signup', sessions: 1, outcome: 'current' },
    ]);
  });

  it("moves a conversation's timers for the playground's clock, and fires one now", async () => {
    const { inspector, app, db, engine } = await panelServer();
    inspector.attach({ engine, flows, problems: [] });
    annStarts(db);
    engine.processPending();
    type Timer = { id: number; name: string; fireAt: number };
    const timers = async () => (await get(app, '/_inspector/conversation?user_id=7')).body.timers as Timer[];
    const before = await timers();
    expect(before.length).toBeGreaterThan(1);
    const post = (url: string, payload: object) =>
      app.inject({ method: 'POST', url, payload }).then((r) => ({ status: r.statusCode, body: r.json() }));

    expect((await post('/_inspector/timers/advance', { user_id: 7, ms: -5 })).status).toBe(400);
    expect(await post('/_inspector/timers/advance', { user_id: 7, ms: 60_000 })).toEqual({
      status: 200,
      body: { moved: before.length },
    });
    // The timers are hours ahead: each is now due a minute sooner.
    for (const t of await timers()) expect(t.fireAt).toBe(before.find((b) => b.id === t.id)!.fireAt - 60_000);

    const remind = before.find((t) => t.name.includes('remind'))!;
    expect(await post('/_inspector/timers/fire', { user_id: 8, timer_id: remind.id })).toMatchObject({
      status: 404,
    });
    expect(await post('/_inspector/timers/fire', { user_id: 7, timer_id: remind.id })).toEqual({
      status: 200,
      body: { fired: true },
    });
    engine.tick();
    expect((await timers()).map((t) => t.name)).not.toContain(remind.name);
  });

  it('jumps a conversation to a step with chosen variables: the prompt is sent and reminders armed', async () => {
    const { inspector, app, db, engine } = await panelServer();
    inspector.attach({ engine, flows, problems: [] });
    const post = (payload: object) =>
      app
        .inject({ method: 'POST', url: '/_inspector/jump', payload })
        .then((r) => ({ status: r.statusCode, body: r.json() }));
    const vars = { name: 'Ann', age: 30, email: 'ann@example.org' };
    expect((await post({ user_id: 7, flow: 'signup', step: 'confirm' })).status).toBe(400);
    expect(await post({ user_id: 7, chat_id: 5, flow: 'signup', step: 'nowhere', vars })).toMatchObject({
      status: 404,
      body: { message: expect.stringContaining('no step "nowhere"') },
    });
    expect(await post({ user_id: 7, chat_id: 5, flow: 'signup', step: 'confirm', vars })).toEqual({
      status: 200,
      body: { jumped: true },
    });
    engine.processPending();
    const { body } = await get(app, '/_inspector/conversation?user_id=7');
    expect(body.session).toMatchObject({ flowId: 'signup', status: 'active', step: ['confirm'] });
    expect(body.session.context.vars).toEqual(vars);
    expect(body.timers.map((t: { name: string }) => t.name)).toEqual(['confirm:remind:0']);
    const sent = new OutboxStore(db)
      .forConversation('u:7')
      .map((r) => JSON.parse(r.args) as { text?: string; chat_id?: number });
    expect(sent[0]).toMatchObject({ chat_id: 5, text: expect.stringContaining('Ann') });
    // The funnel counts the jump as a session of its own, entered at that step.
    expect([...engine.sessions.stepLog({ flowId: 'signup' })]).toEqual([
      expect.objectContaining({
        conversationKey: 'u:7',
        step: 'confirm',
        event: 'enter',
        sessionActive: true,
      }),
    ]);
  });

  it('lists the calls that failed for good', async () => {
    const { app, db, engine, inspector } = await panelServer();
    inspector.attach({ engine, flows, problems: [] });
    const outbox = new OutboxStore(db);
    outbox.insert({
      conversationKey: 'u:7',
      revision: 1,
      seq: 1,
      orderKey: 'chat:7',
      chatId: 7,
      kind: 'api',
      op: 'sendMessage',
      args: '{"chat_id":7,"text":"hi"}',
      ref: null,
      priority: 'reply',
      createdAt: 1,
    });
    outbox.claim(1, 2);
    outbox.finish(1, { status: 'failed', error: 'chat.denied: the person blocked the bot' }, 3);
    const { status, body } = await get(app, '/_inspector/dead-letters');
    expect(status).toBe(200);
    expect(body).toEqual({
      deadLetters: [
        {
          outboxId: 1,
          conversationKey: 'u:7',
          op: 'sendMessage',
          attempts: 1,
          error: 'chat.denied: the person blocked the bot',
          failedAt: 3,
        },
      ],
    });

    // Sent again from the page: pending in line, gone from the list.
    const post = (url: string, payload: unknown) =>
      app.inject({ method: 'POST', url, payload: payload as object }).then((r) => ({
        status: r.statusCode,
        body: r.json(),
      }));
    expect(await post('/_inspector/dead-letters/retry', { ids: [] })).toMatchObject({ status: 400 });
    expect(await post('/_inspector/dead-letters/retry', { ids: ['1'] })).toMatchObject({ status: 400 });
    expect(await post('/_inspector/dead-letters/retry', { ids: [1] })).toEqual({
      status: 200,
      body: { changed: 1 },
    });
    expect(outbox.get(1)?.status).toBe('pending');
    expect((await get(app, '/_inspector/dead-letters')).body.deadLetters).toEqual([]);

    // Failed again, then given up for good.
    outbox.claim(1, 4);
    outbox.finish(1, { status: 'failed', error: 'still refused' }, 5);
    expect(await post('/_inspector/dead-letters/drop', { all: true })).toEqual({
      status: 200,
      body: { changed: 1 },
    });
    expect(outbox.get(1)?.status).toBe('dropped');
  });

  it('refuses a conversation request without a person or a key, saying what to give', async () => {
    const { app } = await panelServer();
    const { status, body } = await get(app, '/_inspector/conversation?user_id=ann');
    expect(status).toBe(400);
    expect(body.message).toContain('Give user_id');
  });

  it('keeps the last good graphs while a reload has problems, and tells open pages at once', async () => {
    const { inspector, app, engine } = await panelServer();
    inspector.attach({ engine, flows, problems: [] });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address() as { port: number };
    const stream = await fetch(`http://127.0.0.1:${address.port}/_inspector/events`);
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();

    inspector.setFlows([], ['flows/help.flow.yaml:11:11: error: unknown step "goodbye"']);
    let text = '';
    const deadline = Date.now() + 10_000;
    while (!text.includes('event: flows') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text).toContain('event: flows');
    expect(text).toContain('unknown step');
    const state = (await get(app, '/_inspector/state')).body;
    expect(state.problems).toEqual(['flows/help.flow.yaml:11:11: error: unknown step "goodbye"']);
    expect(state.flows.map((f: { id: string }) => f.id).sort()).toEqual([
      'booking',
      'help',
      'order_tracking',
      'rate_us',
      'settings',
      'signup',
      'support',
    ]);
    await reader.cancel();
  });

  it('describes history events in a few words', () => {
    const message = {
      update_type: 'message_created',
      message: {
        body: {
          text: 'here it is',
          attachments: [{ type: 'file', filename: 'log.txt' }, { type: 'inline_keyboard' }],
        },
      },
    };
    expect(describeEvent({ kind: 'update', updateType: 'message_created', payload: message })).toBe(
      'message "here it is" + file log.txt',
    );
    const shipped = { name: 'order_shipped', payload: { id: 7 }, key: null, userId: 42, at: 1 };
    expect(describeEvent({ kind: 'event', updateType: null, payload: shipped })).toBe(
      'event order_shipped {"id":7}',
    );
    const press = { update_type: 'message_callback', callback: { payload: '3k.edit_age.Zm9vYmFy' } };
    expect(describeEvent({ kind: 'update', updateType: 'message_callback', payload: press })).toBe(
      'button edit_age',
    );
    // Choices of a list are numbered in their payloads: the history reads the pressed button's label.
    const keyboard = [
      {
        type: 'inline_keyboard',
        payload: {
          buttons: [
            [{ type: 'callback', text: '19:00 (4 seats)', payload: '7.#4.Zm9vYmFy' }],
            [{ type: 'callback', text: '›', payload: '7.#p1.Zm9vYmFy' }],
          ],
        },
      },
    ];
    const choice = (payload: string, attachments?: unknown) =>
      describeEvent({
        kind: 'update',
        updateType: 'message_callback',
        payload: { callback: { payload }, ...(attachments ? { message: { body: { attachments } } } : {}) },
      });
    expect(choice('7.#4.Zm9vYmFy', keyboard)).toBe('button "19:00 (4 seats)"');
    expect(choice('7.#p1.Zm9vYmFy', keyboard)).toBe('turned the choices to page 2');
    expect(choice('7.#4.Zm9vYmFy')).toBe('choice 5'); // the update came without its message
    expect(describeEvent({ kind: 'update', updateType: 'bot_stopped', payload: {} })).toBe('bot stopped');
    // Engine events in designer words, not internal names.
    const timer = (name: string) => describeEvent({ kind: 'timer', updateType: null, payload: { name } });
    expect(timer('ask_name:remind:0')).toBe('reminder 1 of ask_name');
    expect(timer('ask_name:idle')).toBe('idle timeout of ask_name');
    const result = (payload: object) => describeEvent({ kind: 'effect_result', updateType: null, payload });
    expect(result({ ref: 'render', ok: true })).toBe('message shown (kept to edit in place)');
    expect(result({ ref: 'render', ok: false })).toBe('message could not be shown');
    expect(describeEvent({ kind: 'jump', updateType: null, payload: { step: 'confirm' } })).toBe(
      'jumped to confirm (playground)',
    );
    const task = (payload: object) => describeEvent({ kind: 'task_result', updateType: null, payload });
    expect(task({ task: 'find_slots', ref: 'find:task', ok: true, attempts: 1 })).toBe(
      'task find_slots done',
    );
    expect(task({ task: 'save', ok: false, attempts: 3, error: { code: 'timeout' } })).toBe(
      'task save timed out after 3 attempts',
    );
    expect(task({ task: 'save', ok: false, attempts: 1, error: { code: 'slot_taken' } })).toBe(
      'task save failed (slot_taken)',
    );
  });
});
