// Presses on keyboards: current ones reach the flow (answered first), stale ones follow the step's
// policy (notify, re-render, accept), forged or foreign ones are answered and go no further.
import { afterEach, describe, expect, it } from 'vitest';
import { defineFlow } from '../../src/engine/step/helpers.ts';
import { botStarted, press, signupFlow, signupMachine, textMessage } from './fixtures.ts';
import { EngineOnDisk } from './harness.ts';

let h: EngineOnDisk;
afterEach(async () => {
  await h?.close();
});

/** Person 7 reaches the plan menu, presses Back (menu now stale), and is asked for a name again. */
function leaveTheMenu(): Record<string, string> {
  h.deliver(botStarted(7, h.time));
  h.engine.processPending();
  h.deliver(textMessage(7, h.time, 'Ann'));
  h.engine.processPending();
  const menu = h.lastKeyboard('u:7');
  h.deliver(press(7, h.time, menu.Back!));
  h.engine.processPending();
  expect(h.engine.sessions.get('u:7')!.step).toBe('ask_name');
  return menu;
}

function answers(): Record<string, unknown>[] {
  return h
    .outbox('u:7')
    .filter((r) => r.op === 'answerCallback')
    .map((r) => r.args);
}

describe('stale buttons', () => {
  it('notify: answers the press with the policy text and leaves the session where it is', () => {
    h = new EngineOnDisk(() => [signupFlow]);
    const menu = leaveTheMenu();
    const revision = h.engine.sessions.get('u:7')!.revision;
    h.deliver(press(7, h.time, menu.Pro!));
    const [outcome] = h.engine.processPending();
    expect(outcome).toMatchObject({ status: 'done', reason: 'stale button: person notified' });
    expect(answers().at(-1)).toEqual({ callback_id: expect.any(String), notification: 'That menu is old.' });
    expect(h.engine.sessions.get('u:7')).toMatchObject({ step: 'ask_name', revision });
  });

  it('rerender: a step without the redraw event still gets the press answered, and nothing else', () => {
    const flow = defineFlow({
      id: 'signup',
      machine: signupMachine,
      triggers: [{ kind: 'bot_started' }],
      stale: { kind: 'rerender' },
      rerenderEvent: { type: 'redraw' },
    });
    h = new EngineOnDisk(() => [flow]);
    h.deliver(botStarted(7, h.time));
    h.engine.processPending();
    h.deliver(textMessage(7, h.time, 'Ann'));
    h.engine.processPending();
    const first = h.lastKeyboard('u:7');
    h.deliver(press(7, h.time, first.Pro!)); // → confirm: the plan menu is stale now
    h.engine.processPending();
    h.deliver(press(7, h.time, first.Basic!));
    h.engine.processPending();
    // The confirm step has no `redraw` handler: nothing is drawn, but the press is still answered first.
    expect(h.outbox('u:7').at(-1)!.op).toBe('answerCallback');
    expect(h.engine.sessions.get('u:7')!.step).toBe('confirm');
  });

  it('rerender: a step that handles the redraw event sends its prompt again', () => {
    const flow = defineFlow({
      id: 'signup',
      machine: signupMachine,
      triggers: [{ kind: 'bot_started' }],
      stale: { kind: 'rerender' },
      rerenderEvent: { type: 'redraw' },
    });
    h = new EngineOnDisk(() => [flow]);
    h.deliver(botStarted(7, h.time));
    h.engine.processPending();
    h.deliver(textMessage(7, h.time, 'Ann'));
    h.engine.processPending();
    const old = h.lastKeyboard('u:7');
    h.deliver(press(7, h.time, old.Back!), textMessage(7, h.time, 'Ann'));
    h.engine.processPending(); // back in ask_plan, with a new step instance: `old` is stale
    h.deliver(press(7, h.time, old.Pro!));
    h.engine.processPending();
    const tail = h.outbox('u:7').slice(-2);
    expect(tail.map((r) => r.op)).toEqual(['answerCallback', 'sendMessage']);
    expect(tail[1]!.args.text).toBe('Pick a plan again:');
    const redrawn = h.lastKeyboard('u:7');
    h.deliver(press(7, h.time, redrawn.Basic!));
    h.engine.processPending();
    expect(h.engine.sessions.get('u:7')!.context).toMatchObject({ plan: 'basic' });
  });

  it('accept: delivers the stale press as if it were current', () => {
    const flow = defineFlow({
      id: 'signup',
      machine: signupMachine,
      triggers: [{ kind: 'bot_started' }],
      stale: { kind: 'accept' },
    });
    h = new EngineOnDisk(() => [flow]);
    h.deliver(botStarted(7, h.time));
    h.engine.processPending();
    h.deliver(textMessage(7, h.time, 'Ann'));
    h.engine.processPending();
    const old = h.lastKeyboard('u:7');
    h.deliver(press(7, h.time, old.Back!), textMessage(7, h.time, 'Ann'), press(7, h.time, old.Pro!));
    const outcomes = h.engine.processPending();
    expect(outcomes.at(-1)).toMatchObject({ status: 'done', reason: 'stale button accepted by policy' });
    expect(h.engine.sessions.get('u:7')!.context).toMatchObject({ plan: 'pro' });
  });

  it('answers a forged payload without acting on it', () => {
    h = new EngineOnDisk(() => [signupFlow]);
    h.deliver(botStarted(7, h.time));
    h.engine.processPending();
    h.deliver(textMessage(7, h.time, 'Ann'));
    h.engine.processPending();
    const real = h.lastKeyboard('u:7').Pro!;
    h.deliver(press(7, h.time, real.replace('plan:pro', 'plan:max')), press(7, h.time, 'plan:pro'));
    const outcomes = h.engine.processPending();
    expect(outcomes.map((o) => o.status)).toEqual(['ignored', 'ignored']);
    expect(outcomes[0]!.reason).toMatch(/signature does not match/);
    expect(answers().slice(-2)).toEqual([
      { callback_id: expect.any(String) },
      { callback_id: expect.any(String) },
    ]);
    expect(h.engine.sessions.get('u:7')!.step).toBe('ask_plan');
  });

  it('tells people a keyboard is no longer active when no session runs', () => {
    h = new EngineOnDisk(() => [signupFlow]);
    const menu = leaveTheMenu();
    h.engine.sessions.end('u:7');
    h.deliver(press(7, h.time, menu.Pro!));
    const [outcome] = h.engine.processPending();
    expect(outcome).toMatchObject({
      status: 'ignored',
      reason: 'stale button: the conversation has no running session',
    });
    expect(answers().at(-1)).toMatchObject({ notification: 'This menu is no longer active.' });
  });
});
