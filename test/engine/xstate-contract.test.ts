/**
 * The step runs XState machines in a scope of its own (step.ts: one inert actor scope per machine, actions
 * collected instead of executed) because XState's public `transition()` builds a throwaway actor per call.
 * That leans on XState internals; this test holds it to the public API: for real flows, every step gives
 * the snapshot and the effects that `initialTransition()` / `transition()` give. An XState upgrade that
 * changes what the private scope must provide fails here.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type AnyMachineSnapshot, initialTransition, transition } from 'xstate';
import { ButtonSigner } from '../../src/engine/step/buttons.ts';
import {
  EFFECT_ACTION,
  type Effect,
  type EventMeta,
  type FlowDefinition,
} from '../../src/engine/step/contract.ts';
import { planEffects } from '../../src/engine/step/effects.ts';
import { type StepCause, type StoredSnapshot, step, storeSnapshot } from '../../src/engine/step/step.ts';
import { loadFlows } from '../../src/flows/load.ts';
import { signupFlow } from './fixtures.ts';

const signer = new ButtonSigner('a-test-secret-of-enough-length');
const key = 'u:7';
const options = { conversationKey: key, sign: (i: number, p: string) => signer.sign(key, i, p) };
const meta = (now: number): EventMeta => ({ conversation: key, chatId: 1007, userId: 7, locale: 'en', now });
const text = (t: string, now: number) => ({
  type: 'message',
  text: t,
  attachments: [],
  message: {},
  meta: meta(now),
});

/** What XState's public API says one step does: the next snapshot and the effects among its actions. */
function publicStep(
  flow: FlowDefinition,
  from: AnyMachineSnapshot | undefined,
  cause: StepCause,
): [AnyMachineSnapshot, Effect[]] {
  const [next, actions] =
    cause.type === 'start'
      ? initialTransition(flow.machine, cause.input)
      : transition(flow.machine, from as never, cause.event as never);
  const effects = (actions as { type: string; params?: unknown }[])
    .filter((a) => a.type === EFFECT_ACTION)
    .map((a) => a.params as Effect);
  return [next as AnyMachineSnapshot, effects];
}

/** Drives `causes` through both and compares each step's stored snapshot and planned calls and timers. */
function compare(flow: FlowDefinition, causes: StepCause[]): unknown[] {
  let stored: StoredSnapshot | undefined;
  let machineSnapshot: AnyMachineSnapshot | undefined;
  let revision = 0;
  let stepInstance = 0;
  const values: unknown[] = [];
  for (const cause of causes) {
    const ours = step(
      flow,
      { ...(stored ? { snapshot: stored } : {}), revision, stepInstance },
      cause,
      options,
    );
    const [theirs, effects] = publicStep(flow, machineSnapshot, cause);
    expect(ours.snapshot).toEqual(storeSnapshot(flow.machine, theirs));
    const planned = planEffects(effects, key, {
      meta: cause.type === 'start' ? cause.input.meta : cause.event.meta,
      stepInstance: ours.stepInstance,
      sign: options.sign,
    });
    expect(ours.calls).toEqual(planned.calls);
    expect(ours.timers).toEqual(planned.timers);
    stored = ours.snapshot;
    machineSnapshot = theirs;
    revision = ours.revision;
    stepInstance = ours.stepInstance;
    values.push(ours.snapshot.value);
  }
  return values;
}

describe("the step agrees with XState's public transition()", () => {
  it('on a machine written in TypeScript (setup())', () => {
    const steps = compare(signupFlow, [
      { type: 'start', input: { trigger: { kind: 'bot_started', payload: 'ref42' }, meta: meta(1_000) } },
      { type: 'event', event: text('Ann', 2_000) },
      { type: 'event', event: { type: 'timer', name: 'remind', meta: meta(3_700_000) } as never },
    ]);
    expect(steps).toEqual(['ask_name', 'ask_plan', 'ask_plan']);
  });

  it('on the example sign-up flow compiled from its flow file: valid and invalid answers, a command', async () => {
    const dir = fileURLToPath(new URL('../../flows/', import.meta.url));
    const { flows, problems } = await loadFlows(dir);
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    const signup = flows.find((f) => f.id === 'signup')!;
    const steps = compare(signup, [
      { type: 'start', input: { trigger: { kind: 'bot_started' }, meta: meta(1_000) } },
      { type: 'event', event: text('Ann', 2_000) },
      { type: 'event', event: text('not a number', 3_000) },
      { type: 'event', event: text('34', 4_000) },
      {
        type: 'event',
        event: {
          type: 'command',
          name: 'cancel',
          args: '',
          message: {},
          meta: meta(5_000),
        } as never,
      },
    ]);
    expect(steps).toEqual(['ask_name', 'ask_age', 'ask_age', 'ask_email', 'cancelled']);
  });
});
