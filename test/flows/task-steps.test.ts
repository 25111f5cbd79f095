/** Task steps in flow files, run with XState's pure functions: start, result, failures, input while waiting. */
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { Drive } from './drive.ts';

const FLOW = (task = '', more = '') => `
flow: booking
start: party
commands:
  cancel: { say: Cancelled., goto: cancelled }
steps:
  party:
    type: input
    say: How many?
    input: integer
    retries: { max: 3, exhausted: { goto: cancelled } }
    save: party
    next: find
  find:
    type: message
    say: Looking for free tables…
    do:
      - task: find_slots
        input: { date: "2026-03-01", party: "{{party}}", double: "= party * 2" }
        save_as: slots
        timeout: 5s
        retry: { attempts: 2, backoff: 2s }${task}
    next:
      - { when: { expr: "len(slots) == 0" }, goto: none }
      - { goto: pick }
  pick:
    type: input
    say: "Pick one of {{slots}}"
    input: text
    retries: { max: 3, exhausted: { goto: cancelled } }
    save: slot
    next: done
  none: { type: end, say: Nothing free. }
  sorry: { type: end, say: Sorry. }
  late: { type: end, say: Too slow. }
  taken: { type: end, say: Taken. }
  done: { type: end, say: "Booked {{slot}}." }
  cancelled: { type: end, say: Bye. }${more}
`;

function compile(source: string): FlowDefinition {
  const r = compileSources([{ file: 'booking.flow.yaml', source }], EMPTY_REGISTRY, new Map());
  expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return r.flows[0]!;
}

const ON_ERROR = `
        on_error:
          - { code: slot_taken, goto: taken }
          - { say: "Our booking system is down.", goto: sorry }
        on_timeout: late`;

const texts = (d: Drive) =>
  d.effects
    .filter((e) => (e as { op?: string }).op === 'sendMessage')
    .map((e) => (e as unknown as { args: { text: string } }).args.text);

function atFind(task = ON_ERROR): Drive {
  const d = new Drive(compile(FLOW(task)));
  d.text('4');
  return d;
}

describe('task steps', () => {
  it('start the task with computed input and wait on the step', () => {
    const d = atFind();
    expect(d.step).toBe('find');
    expect(texts(d)).toEqual(['Looking for free tables…']);
    expect(d.effects.find((e) => e.kind === 'task.start')).toEqual({
      kind: 'task.start',
      task: 'find_slots',
      input: { date: '2026-03-01', party: 4, double: 8 },
      ref: 'find:task',
      policy: { timeoutMs: 5000, attempts: 2, backoffMs: 2000 },
    });
  });

  it("save the result and take the step's next, whose conditions see the result", () => {
    const d = atFind();
    d.send({ type: 'task.done', task: 'find_slots', ref: 'find:task', result: ['18:00'] } as never);
    expect(d.step).toBe('pick');
    expect(d.vars.slots).toEqual(['18:00']);
    const e = atFind();
    e.send({ type: 'task.done', task: 'find_slots', ref: 'find:task', result: [] } as never);
    expect(e.step).toBe('none');
  });

  it('route a failure by its code, any other failure to the catch-all, and a timeout to on_timeout', () => {
    const failed = (code: string) => {
      const d = atFind();
      d.send({
        type: 'task.failed',
        task: 'find_slots',
        ref: 'find:task',
        error: { code, message: code },
      } as never);
      return d;
    };
    expect(failed('slot_taken').step).toBe('taken');
    const down = failed('error');
    expect(down.step).toBe('sorry');
    expect(texts(down)).toEqual(['Our booking system is down.', 'Sorry.']);
    expect(down.vars.task_error).toEqual({ code: 'error', message: 'error' });
    expect(failed('timeout').step).toBe('late');
  });

  it('without on_error, tell the person and stay (a command still leads out)', () => {
    const d = atFind('');
    d.send({
      type: 'task.failed',
      task: 'find_slots',
      ref: 'find:task',
      error: { code: 'x', message: 'x' },
    } as never);
    expect(d.step).toBe('find');
    expect(texts(d)).toEqual(['Sorry, something went wrong on our side. Please try again later.']);
    d.command('cancel');
    expect(d.step).toBe('cancelled');
  });

  it('ignore results of another ref', () => {
    const d = atFind();
    d.send({ type: 'task.done', task: 'find_slots', ref: 'other:task', result: [] } as never);
    expect(d.step).toBe('find');
  });

  it('queue a message sent while the task runs, and hand it to the step the result leads to', () => {
    const d = atFind();
    d.text('18:00');
    expect(d.effects).toEqual([]);
    d.send({ type: 'task.done', task: 'find_slots', ref: 'find:task', result: ['18:00'] } as never);
    expect(d.step).toBe('done');
    expect(d.vars.slot).toBe('18:00');
    expect(texts(d)).toEqual(['Pick one of 18:00', 'Booked 18:00.']);
  });

  it('answer a message with a word under while_running: ignore', () => {
    const d = atFind(`${ON_ERROR}\n        while_running: { ignore: "Still looking…" }`);
    d.text('hello');
    expect(texts(d)).toEqual(['Still looking…']);
    expect(d.step).toBe('find');
  });

  it('cancel the task under while_running: cancel, taking the error path', () => {
    const d = atFind(`${ON_ERROR}\n        while_running: cancel`);
    d.text('stop');
    expect(d.effects.find((e) => e.kind === 'task.cancel')).toEqual({
      kind: 'task.cancel',
      ref: 'find:task',
    });
    expect(d.step).toBe('sorry');
    expect(d.vars.task_error).toMatchObject({ code: 'cancelled' });
  });
});
