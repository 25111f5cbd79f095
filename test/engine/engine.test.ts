// The engine over a real SQLite file: dialogs across restarts, ordering, interleaving, contained failures,
// support inspection. Calls are checked as outbox rows (what would be sent); sending is tested elsewhere.
import { afterEach, describe, expect, it } from 'vitest';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { InboxStore } from '../../src/store/inbox.ts';
import { botStarted, botStopped, collectFlow, press, signupFlow, textMessage } from './fixtures.ts';
import { EngineOnDisk } from './harness.ts';

let h: EngineOnDisk;
afterEach(async () => {
  await h?.close();
});

describe('engine over SQLite', () => {
  it('carries a multi-step dialog across closing and reopening the database', async () => {
    h = new EngineOnDisk(() => [signupFlow]);
    h.deliver(botStarted(7, h.time, 'ref42'));
    h.engine.processPending();
    h.deliver(textMessage(7, h.time, 'Ann'));
    h.engine.processPending();

    await h.reopen();
    const menu = h.lastKeyboard('u:7');
    expect(Object.keys(menu)).toEqual(['Basic', 'Pro', 'Back']);
    h.deliver(press(7, h.time, menu.Pro!, 'mid.menu'));
    h.engine.processPending();

    await h.reopen();
    h.deliver(textMessage(7, h.time, 'yes'));
    h.engine.processPending();

    expect(h.texts('u:7')).toEqual([
      'What is your name?',
      'Hello Ann! Pick a plan:',
      'Plan: pro',
      'Ann on pro. Type yes to finish.',
      'Welcome aboard!',
    ]);
    const ops = h.outbox('u:7').map((r) => r.op);
    expect(ops.indexOf('answerCallback')).toBe(ops.indexOf('editMessage') - 1);
    expect(h.outbox('u:7').find((r) => r.op === 'editMessage')?.args.message_id).toBe('mid.menu');
    const session = h.engine.sessions.get('u:7')!;
    expect(session.status).toBe('done');
    expect(session.context).toEqual({ reminders: 0, payload: 'ref42', name: 'Ann', plan: 'pro' });
    expect(session.flowVersion).toBe(signupFlow.version);
  });

  it("runs an update in the conversation intake keyed it to: the inbox row's key is the only one", () => {
    h = new EngineOnDisk(() => [signupFlow]);
    // Intake keyed this row by a custom strategy (here: a made-up key); the engine must not key it again.
    const entry = { ...updateEntry(JSON.stringify(botStarted(7, h.time))), conversationKey: 'team:blue' };
    new InboxStore(h.db).append([{ ...entry, receivedAt: h.time }]);
    h.engine.processPending();
    expect(h.texts('team:blue').length).toBeGreaterThan(0);
    expect(h.texts('u:7')).toEqual([]);
  });

  it('handles two quick updates from one person in arrival order', () => {
    h = new EngineOnDisk(() => [collectFlow]);
    h.deliver(textMessage(3, h.time, '/collect'));
    h.deliver(textMessage(3, h.time, 'one'), textMessage(3, h.time, 'two'));
    h.engine.processPending();
    expect(h.texts('u:3')).toEqual(['one', 'one,two']);
  });

  it('runs many people interleaved, each in their own session and order', () => {
    h = new EngineOnDisk(() => [signupFlow], { batchSize: 64 });
    const people = Array.from({ length: 150 }, (_, i) => 100 + i);
    for (const id of people) h.deliver(botStarted(id, h.time));
    h.engine.processPending();
    const shuffled = [...people].sort((a, b) => ((a * 7919) % 151) - ((b * 7919) % 151));
    for (const id of shuffled) h.deliver(textMessage(id, h.time, `name${id}`));
    h.engine.processPending();
    // Each person's press, then (with someone else's press in between) their final answer, in one batch run.
    const reversed = [...people].reverse();
    reversed.forEach((id, i) => {
      h.deliver(press(id, h.time, h.lastKeyboard(`u:${id}`).Basic!));
      if (i > 0) h.deliver(textMessage(reversed[i - 1]!, h.time, 'yes'));
    });
    h.deliver(textMessage(reversed.at(-1)!, h.time, 'yes'));
    h.engine.processPending();
    for (const id of people) {
      expect(h.texts(`u:${id}`)).toEqual([
        'What is your name?',
        `Hello name${id}! Pick a plan:`,
        'Plan: basic',
        `name${id} on basic. Type yes to finish.`,
        'Welcome aboard!',
      ]);
      expect(h.engine.sessions.get(`u:${id}`)!.status).toBe('done');
      expect(
        h.outbox(`u:${id}`).every((r) => r.orderKey === `chat:${1000 + id}` || r.op === 'answerCallback'),
      ).toBe(true);
    }
    expect(h.inboxRows().filter((r) => r.status !== 'done')).toEqual([]);
  });

  it('contains a throwing step: event failed with the reason, session intact, others unaffected', () => {
    h = new EngineOnDisk(() => [signupFlow]);
    h.deliver(botStarted(1, h.time), botStarted(2, h.time));
    h.engine.processPending();
    const before = h.engine.sessions.get('u:1')!;
    const errors: unknown[] = [];
    h.engine.on('error', (e) => errors.push(e));

    h.deliver(textMessage(1, h.time, 'explode'), textMessage(2, h.time, 'Bea'));
    const outcomes = h.engine.processPending();

    expect(outcomes.map((o) => o.status)).toEqual(['failed', 'done']);
    expect(outcomes[0]!.reason).toMatch(/the flow blew up on purpose/);
    expect(errors).toHaveLength(1);
    const after = h.engine.sessions.get('u:1')!;
    expect(after.revision).toBe(before.revision);
    expect(after.step).toBe('ask_name');
    expect(h.engine.sessions.history('u:1')[0]).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/blew up/),
    });
    expect(h.engine.sessions.get('u:2')!.step).toBe('ask_plan');

    h.deliver(textMessage(1, h.time, 'Ann'));
    h.engine.processPending();
    expect(h.engine.sessions.get('u:1')!.step).toBe('ask_plan');
  });

  it('contains a write the database refuses: that event failed, the rest of its conversation goes on', () => {
    h = new EngineOnDisk(() => [collectFlow]);
    h.deliver(textMessage(1, h.time, '/collect'), textMessage(2, h.time, '/collect'));
    h.engine.processPending();
    // The database refuses one particular call (standing in for a constraint or trigger of the deployment).
    h.db.exec(
      "CREATE TRIGGER refuse_bad AFTER INSERT ON outbox WHEN NEW.args LIKE '%bad%' " +
        "BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END",
    );
    h.deliver(textMessage(1, h.time, 'bad'), textMessage(2, h.time, 'fine'), textMessage(1, h.time, 'after'));
    const outcomes = h.engine.processPending();

    expect(outcomes.map((o) => [o.conversationKey, o.status])).toEqual([
      ['u:1', 'failed'],
      ['u:2', 'done'],
      ['u:1', 'done'],
    ]);
    expect(outcomes[0]!.reason).toMatch(/refused by a trigger/);
    expect(h.texts('u:1')).toEqual(['after']); // planned again on the last good session, without "bad"
    expect(h.texts('u:2')).toEqual(['fine']);
    expect(h.inboxRows().map((r) => r.status)).toEqual(['done', 'done', 'failed', 'done', 'done']);
  });

  it('records updates nobody handles as ignored, with the reason', () => {
    h = new EngineOnDisk(() => [signupFlow]);
    h.deliver(textMessage(5, h.time, 'hello?'));
    const [outcome] = h.engine.processPending();
    expect(outcome).toMatchObject({
      status: 'ignored',
      reason: 'no running session, and no flow trigger matches',
    });
    expect(h.outbox()).toEqual([]);
  });

  it('cancels timers and drops unsent calls when the person stops the bot', () => {
    h = new EngineOnDisk(() => [signupFlow]);
    h.deliver(botStarted(9, h.time));
    h.engine.processPending();
    expect(h.engine.sessions.get('u:9')!.timers.map((t) => t.name)).toEqual(['remind']);

    h.deliver(botStopped(9, h.time));
    h.engine.processPending();
    const session = h.engine.sessions.get('u:9')!;
    expect(session.status).toBe('stopped');
    expect(session.timers).toEqual([]);
    expect(h.outbox('u:9').map((r) => [r.status, r.error])).toEqual([
      ['dropped', 'the person stopped the bot'],
    ]);

    h.advance(2 * 3_600_000);
    expect(h.engine.tick()).toEqual([]);
  });

  it('shows support a conversation: list, step, context and history', () => {
    h = new EngineOnDisk(() => [signupFlow]);
    h.deliver(botStarted(4, h.time));
    h.advance(1000);
    h.deliver(textMessage(4, h.time, 'Dora'));
    h.engine.processPending();
    const [listed] = h.engine.sessions.list();
    expect(listed).toMatchObject({
      conversationKey: 'u:4',
      flowId: 'signup',
      step: 'ask_plan',
      status: 'active',
    });
    expect(h.engine.sessions.get('u:4')!.context).toMatchObject({ name: 'Dora' });
    const history = h.engine.sessions.history('u:4');
    expect(history.map((e) => [e.updateType, e.status])).toEqual([
      ['message_created', 'done'],
      ['bot_started', 'done'],
    ]);
    expect(h.engine.sessions.end('u:4')).toBe(true);
    expect(h.engine.sessions.get('u:4')!.status).toBe('stopped');
  });

  it('prunes settled updates, calls and timers past their retention, keeping open ones and sessions', async () => {
    const { RecordingGateway } = await import('./harness.ts');
    h = new EngineOnDisk(() => [signupFlow], { scheduler: new RecordingGateway() });
    h.deliver(botStarted(1, h.time));
    h.engine.start();
    h.engine.notify();
    await h.engine.drain();
    h.deliver(textMessage(1, h.time, 'Ann')); // leaves ask_name: its reminder is discarded
    await h.engine.drain();
    h.advance(8 * 24 * 3_600_000);
    h.deliver(press(1, h.time, h.lastKeyboard('u:1').Pro!)); // a recent call, not settled yet
    h.engine.processPending();
    // The two updates of 8 days ago are past the inbox's 72 h; the press of now is kept.
    expect(h.engine.prune()).toEqual({ inbox: 2, outbox: 2, timers: 1, tasks: 0, stepLog: 0 });
    // The funnel's step log is kept 90 days: ask_name and ask_plan were entered 8 days ago, confirm now.
    expect(h.engine.prune(undefined, 24 * 3_600_000).stepLog).toBe(2);
    expect(h.outbox('u:1').map((r) => r.op)).toEqual(['answerCallback', 'editMessage', 'sendMessage']);
    expect(h.engine.sessions.get('u:1')!.step).toBe('confirm');
  });
});
