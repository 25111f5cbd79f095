// Sending the outbox: order per chat, results back as events, and nothing lost (at most the in-flight
// calls repeated) when the process dies between commit and send or in the middle of sending.
import { afterEach, describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import type { FlowEvent, FlowInput } from '../../src/engine/step/contract.ts';
import { defineFlow, edit, say } from '../../src/engine/step/helpers.ts';
import { botStarted, signupFlow, textMessage } from '../engine/fixtures.ts';
import { EngineOnDisk, RecordingGateway } from '../engine/harness.ts';
import { eventually } from '../support/eventually.ts';

let h: EngineOnDisk;
afterEach(async () => {
  await h?.close();
});

/** Sends a message, learns its id from the result, then edits that message when told to. */
const editingFlow = defineFlow({
  id: 'editing',
  triggers: [{ kind: 'bot_started' }],
  machine: setup({
    types: { context: {} as { sentId?: string }, events: {} as FlowEvent, input: {} as FlowInput },
  }).createMachine({
    context: {},
    initial: 'waiting',
    states: {
      waiting: {
        entry: say('Counting…', { ref: 'counter' }),
        on: {
          'effect.done': {
            target: 'ready',
            actions: assign({
              sentId: ({ event }) =>
                event.type === 'effect.done'
                  ? (event.result as { message: { body: { mid: string } } }).message.body.mid
                  : undefined,
            }),
          },
        },
      },
      ready: {
        on: {
          message: {
            actions: edit<{ sentId?: string }>('Counted.', { messageId: ({ context }) => context.sentId! }),
          },
        },
      },
    },
  }),
});

describe('outbox dispatch', () => {
  it('sends calls in commit order per chat and feeds asked-for results back to the flow', async () => {
    const gateway = new RecordingGateway();
    h = new EngineOnDisk(() => [editingFlow], { scheduler: gateway });
    h.engine.start();
    h.deliver(botStarted(1, h.time));
    h.engine.notify();
    await eventually(
      'the sent message id to come back',
      () => h.engine.sessions.get('u:1')?.step === 'ready',
      20_000,
    );
    h.deliver(textMessage(1, h.time, 'go'));
    h.engine.notify();
    await eventually('the edit', () => gateway.calls.length === 2, 20_000);
    expect(gateway.calls).toEqual([
      { op: 'sendMessage', args: { text: 'Counting…', chat_id: 1001 } },
      { op: 'editMessage', args: { text: 'Counted.', message_id: 'mid.00000000000000000000000000000001' } },
    ]);
    expect(h.engine.sessions.history('u:1').map((e) => e.kind)).toEqual([
      'update',
      'effect_result',
      'update',
    ]);
  });

  it('loses nothing when the process dies after the commit and before sending', async () => {
    h = new EngineOnDisk(() => [signupFlow]);
    for (const id of [1, 2, 3]) h.deliver(botStarted(id, h.time));
    h.engine.processPending();
    for (const id of [1, 2, 3]) h.deliver(textMessage(id, h.time, `n${id}`));
    h.engine.processPending();
    expect(h.outbox().every((r) => r.status === 'pending')).toBe(true);

    const gateway = new RecordingGateway();
    await h.reopen({ scheduler: gateway });
    h.engine.start();
    await h.engine.drain();
    for (const id of [1, 2, 3]) {
      expect(gateway.calls.filter((c) => c.args.chat_id === 1000 + id).map((c) => c.args.text)).toEqual([
        'What is your name?',
        `Hello n${id}! Pick a plan:`,
      ]);
    }
    expect(h.outbox().map((r) => [r.status, r.attempts])).toEqual(Array(6).fill(['done', 1]));
  });

  it('resends only the calls that were in flight when the process died', async () => {
    const first = new RecordingGateway();
    first.hold = true; // calls reach "the network" and never come back
    h = new EngineOnDisk(() => [signupFlow], { scheduler: first });
    for (const id of [1, 2]) h.deliver(botStarted(id, h.time));
    h.engine.processPending();
    for (const id of [1, 2]) h.deliver(textMessage(id, h.time, `n${id}`));
    h.engine.processPending();
    h.engine.start();
    await eventually('one call per chat in flight', () => first.calls.length === 2, 20_000);
    // One call per chat at a time: the second message of each chat waits for the first.
    expect(first.calls.map((c) => c.args.text)).toEqual(['What is your name?', 'What is your name?']);

    const second = new RecordingGateway();
    await h.reopen({ scheduler: second }); // the crash: held calls never settle
    h.engine.start();
    await h.engine.drain();
    // A call that was in flight may have reached the platform: its chat is read back before it is resent
    // (each chat in its order; the chats' calls interleave as their in-doubt calls settle).
    const inChat = (chat: number) => second.calls.filter((c) => c.args.chat_id === chat);
    expect(second.calls).toHaveLength(6);
    expect([...inChat(1001), ...inChat(1002)].map((c) => [c.op, c.args.chat_id, c.args.text])).toEqual([
      ['getMessages', 1001, undefined],
      ['sendMessage', 1001, 'What is your name?'],
      ['sendMessage', 1001, 'Hello n1! Pick a plan:'],
      ['getMessages', 1002, undefined],
      ['sendMessage', 1002, 'What is your name?'],
      ['sendMessage', 1002, 'Hello n2! Pick a plan:'],
    ]);
    expect(h.outbox().map((r) => r.attempts)).toEqual([2, 2, 1, 1]);
  });
});
