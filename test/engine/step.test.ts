// The pure step and its parts, without SQLite or HTTP: what a flow's transitions turn into.
import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { findFlowToStart } from '../../src/engine/lane/routing.ts';
import { ButtonSigner } from '../../src/engine/step/buttons.ts';
import type { EventMeta, FlowEvent } from '../../src/engine/step/contract.ts';
import { EffectError } from '../../src/engine/step/effects.ts';
import { parseCommand } from '../../src/engine/step/events.ts';
import { FlowDefinitionError, FlowSet, MissingFlowVersionError } from '../../src/engine/step/flow-set.ts';
import { defineFlow, effect, machineVersion, rejectInput, say } from '../../src/engine/step/helpers.ts';
import { StepError, step } from '../../src/engine/step/step.ts';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { signupFlow } from './fixtures.ts';

const signer = new ButtonSigner('a-test-secret-of-enough-length');
const key = 'u:7';
const options = { conversationKey: key, sign: (i: number, p: string) => signer.sign(key, i, p) };
const meta = (now = 1_000): EventMeta => ({ conversation: key, chatId: 1007, userId: 7, now });

function textEvent(text: string, now = 1_000): FlowEvent {
  return { type: 'message', text, attachments: [], message: {} as never, meta: meta(now) };
}

function start() {
  return step(
    signupFlow,
    { revision: 0, stepInstance: 0 },
    { type: 'start', input: { trigger: { kind: 'bot_started' }, meta: meta() } },
    options,
  );
}

describe('step', () => {
  it('starts a session: first prompt to the conversation chat, reminder armed from the event time', () => {
    const result = start();
    expect(result.revision).toBe(1);
    expect(result.stepInstance).toBe(1);
    expect(result.snapshot.value).toBe('ask_name');
    expect(result.calls).toEqual([
      expect.objectContaining({
        op: 'sendMessage',
        args: { text: 'What is your name?', chat_id: 1007 },
        orderKey: 'chat:1007',
      }),
    ]);
    expect(result.timers).toEqual([{ kind: 'arm', name: 'remind', dueAt: 1_000 + 3_600_000 }]);
  });

  it('moves to the next step on a message and signs the keyboard for the new step instance', () => {
    const first = start();
    const event: FlowEvent = {
      type: 'message',
      text: 'Ann',
      attachments: [],
      message: {} as never,
      meta: meta(2_000),
    };
    const result = step(
      signupFlow,
      { snapshot: first.snapshot, revision: 1, stepInstance: 1 },
      { type: 'event', event },
      options,
    );
    expect(result.snapshot.value).toBe('ask_plan');
    expect(result.stepChanged).toBe(true);
    expect(result.stepInstance).toBe(2);
    const keyboard = (
      result.calls[0]!.args.attachments as { payload: { buttons: { payload: string }[][] } }[]
    )[0]!;
    const payloads = keyboard.payload.buttons.flat().map((b) => b.payload);
    expect(payloads.map((p) => signer.verify(key, p))).toEqual([
      { ok: true, instance: 2, button: 'plan', value: 'basic' },
      { ok: true, instance: 2, button: 'plan', value: 'pro' },
      { ok: true, instance: 2, button: 'back' },
    ]);
  });

  it('reports an event the step does not handle as idle, with nothing to commit', () => {
    const first = start();
    const event: FlowEvent = { type: 'bot_started', meta: meta() };
    const result = step(
      signupFlow,
      { snapshot: first.snapshot, revision: 1, stepInstance: 1 },
      { type: 'event', event },
      options,
    );
    expect(result.idle).toBe(true);
    expect(result.calls).toEqual([]);
  });

  it('answers a pressed button before anything else the step does', () => {
    const first = start();
    const toPlan = step(
      signupFlow,
      { snapshot: first.snapshot, revision: 1, stepInstance: 1 },
      {
        type: 'event',
        event: textEvent('Ann'),
      },
      options,
    );
    const pressed: FlowEvent = {
      type: 'button',
      button: 'plan',
      value: 'pro',
      callbackId: 'cb-1',
      meta: meta(),
    };
    const result = step(
      signupFlow,
      { snapshot: toPlan.snapshot, revision: 2, stepInstance: 2 },
      { type: 'event', event: pressed },
      { ...options, callback: { id: 'cb-1', messageId: 'mid.menu' } },
    );
    expect(result.calls.map((c) => c.op)).toEqual(['answerCallback', 'editMessage', 'sendMessage']);
    expect(result.calls[0]!.args).toEqual({ callback_id: 'cb-1' });
    expect(result.calls[1]!.args).toMatchObject({ message_id: 'mid.menu', text: 'Plan: pro' });
    expect(result.timers).toEqual([{ kind: 'cancel', name: 'remind' }]);
  });

  it('counts answers a hand-written machine refuses (rejectInput) for the funnel, sending nothing for it', () => {
    const machine = setup({}).createMachine({
      initial: 'ask',
      states: { ask: { on: { message: { actions: [rejectInput(), say('A number, please.')] } } } },
    });
    const flow = defineFlow({ id: 'numbers', machine, triggers: [] });
    const started = step(
      flow,
      { revision: 0, stepInstance: 0 },
      { type: 'start', input: { trigger: { kind: 'bot_started' }, meta: meta() } },
      options,
    );
    expect(started.rejected).toBe(0);
    const result = step(
      flow,
      { snapshot: started.snapshot, revision: 1, stepInstance: 1 },
      { type: 'event', event: textEvent('many') },
      options,
    );
    expect(result.rejected).toBe(1);
    expect(result.stepChanged).toBe(false);
    expect(result.calls.map((c) => c.args.text)).toEqual(['A number, please.']);
  });

  it('names the steps an event passes through without stopping, by their state path', () => {
    const { flows, problems } = compileSources(
      [
        {
          file: 'main.flow.yaml',
          source:
            'flow: main\nstart: go\ntriggers: [{ bot_started: true }]\nsteps:\n' +
            '  go: { type: call, flow: sub, next: bye }\n  bye: { type: end, say: Bye. }\n',
        },
        {
          file: 'sub.flow.yaml',
          source:
            'flow: sub\nstart: hi\nsteps:\n  hi: { type: message, say: Hi., next: ask }\n' +
            '  ask: { type: input, say: Name?, input: text, save: name, next: done,' +
            ' retries: { max: 2, exhausted: { goto: done } } }\n  done: { type: end }\n',
        },
      ],
      EMPTY_REGISTRY,
      new Map(),
    );
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    const main = flows.find((f) => f.id === 'main')!;
    const started = step(
      main,
      { revision: 0, stepInstance: 0 },
      { type: 'start', input: { trigger: { kind: 'bot_started' }, meta: meta() } },
      options,
    );
    // The call step holds the inner steps: the person is in it, past only the message.
    expect(started.snapshot.value).toEqual({ go: 'ask' });
    expect(started.passed).toEqual(['go>hi']);
    const answered = step(
      main,
      { revision: 1, stepInstance: 1, machineSnapshot: started.machineSnapshot },
      { type: 'event', event: textEvent('Ann') },
      options,
    );
    expect(answered.snapshot.value).toBe('bye');
    expect(answered.passed).toEqual(['go>done']);
  });

  it('refuses an effect that is not a write operation, naming it', () => {
    const machine = setup({}).createMachine({ entry: effect('getChat', { chat_id: 1 }) });
    const flow = defineFlow({ id: 'bad', machine, triggers: [] });
    expect(() =>
      step(
        flow,
        { revision: 0, stepInstance: 0 },
        { type: 'start', input: { trigger: { kind: 'bot_started' }, meta: meta() } },
        options,
      ),
    ).toThrow(EffectError);
    expect(() =>
      step(
        flow,
        { revision: 0, stepInstance: 0 },
        { type: 'start', input: { trigger: { kind: 'bot_started' }, meta: meta() } },
        options,
      ),
    ).toThrow(/"getChat" is not a write operation/);
  });

  it('says clearly when a stored snapshot names a state the flow does not have', () => {
    expect(() =>
      step(
        signupFlow,
        { snapshot: { status: 'active', value: 'gone_state', context: {} }, revision: 3, stepInstance: 3 },
        { type: 'event', event: { type: 'bot_started', meta: meta() } },
        options,
      ),
    ).toThrow(StepError);
  });
});

describe('button payloads', () => {
  it('verify only in the conversation they were signed for, and not once altered', () => {
    const signed = signer.sign('u:1', 42, 'plan:pro');
    expect(signed).toMatch(/^16\.plan:pro\.[A-Za-z0-9_-]{8}$/);
    expect(signer.verify('u:1', signed)).toEqual({ ok: true, instance: 42, button: 'plan', value: 'pro' });
    expect(signer.verify('u:2', signed)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(signer.verify('u:1', signed.replace('pro', 'max'))).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(signer.verify('u:1', 'hello')).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuse a payload longer than the platform allows once signed', () => {
    expect(signer.sign('u:1', 1, `x:${'v'.repeat(1000)}`).length).toBeLessThanOrEqual(1024);
    expect(() => signer.sign('u:1', 1, `x:${'v'.repeat(1020)}`)).toThrow(/1024/);
  });
});

describe('flows and triggers', () => {
  it('refuses XState after-delays with a hint to use durable timers', () => {
    const machine = setup({}).createMachine({ initial: 'a', states: { a: { after: { 1000: 'b' } }, b: {} } });
    expect(() => new FlowSet([defineFlow({ id: 'late', machine, triggers: [] })])).toThrow(
      FlowDefinitionError,
    );
    expect(() => new FlowSet([defineFlow({ id: 'late', machine, triggers: [] })])).toThrow(/armTimer/);
  });

  it('picks the most specific trigger: exact deep-link payload over any bot_started', () => {
    const m = setup({}).createMachine({});
    const generic = defineFlow({ id: 'generic', machine: m, triggers: [{ kind: 'bot_started' }] });
    const promo = defineFlow({
      id: 'promo',
      machine: m,
      triggers: [{ kind: 'bot_started', payload: 'promo42' }],
    });
    const menu = defineFlow({ id: 'menu', machine: m, triggers: [{ kind: 'keyword', pattern: /^menu$/i }] });
    const flows = [generic, promo, menu];
    expect(findFlowToStart(flows, { kind: 'bot_started', payload: 'promo42' })?.id).toBe('promo');
    expect(findFlowToStart(flows, { kind: 'bot_started', payload: 'other' })?.id).toBe('generic');
    expect(findFlowToStart(flows, { kind: 'message', text: 'MENU' })?.id).toBe('menu');
    expect(findFlowToStart(flows, { kind: 'message', text: 'hello' })).toBeUndefined();
  });

  it('parses commands with arguments and a bot suffix', () => {
    expect(parseCommand('/start ref 42')).toEqual({ name: 'start', args: 'ref 42' });
    expect(parseCommand('/help@my_bot')).toEqual({ name: 'help', args: '' });
    expect(parseCommand('hello /start')).toBeUndefined();
    // Addressed in a group: by suffix or by mention; with the bot's name known, another bot's is not ours.
    expect(parseCommand('/help@my_bot', 'My_Bot')).toEqual({ name: 'help', args: '' });
    expect(parseCommand('@my_bot /book 4 people', 'my_bot')).toEqual({ name: 'book', args: '4 people' });
    expect(parseCommand('@my_bot, /book', 'my_bot')).toEqual({ name: 'book', args: '' });
    expect(parseCommand('/help@other_bot', 'my_bot')).toEqual({ otherBot: 'other_bot' });
    expect(parseCommand('@other_bot /help', 'my_bot')).toEqual({ otherBot: 'other_bot' });
    expect(parseCommand('@my_bot hello', 'my_bot')).toBeUndefined();
  });

  it('keeps pinned versions and refuses clearly when a pinned version is missing', () => {
    const v1 = defineFlow({ id: 'f', version: 'v1', machine: setup({}).createMachine({}), triggers: [] });
    const v2 = defineFlow({ id: 'f', version: 'v2', machine: setup({}).createMachine({}), triggers: [] });
    const registry = new FlowSet([v1, v2]);
    expect(registry.latest('f')?.version).toBe('v2');
    expect(registry.resolve('f', 'v1', {}).flow).toBe(v1);
    expect(() => registry.resolve('f', 'v0', {})).toThrow(MissingFlowVersionError);
    expect(() => registry.resolve('f', 'v0', {})).toThrow(/version v0 is not loaded \(loaded: v1, v2\)/);
  });

  it('gives a hand-written flow a version that changes with its texts', () => {
    const a = setup({}).createMachine({ entry: say('hello') });
    const b = setup({}).createMachine({ entry: say('hello!') });
    expect(machineVersion(a)).toBe(machineVersion(setup({}).createMachine({ entry: say('hello') })));
    expect(machineVersion(a)).not.toBe(machineVersion(b));
  });
});
