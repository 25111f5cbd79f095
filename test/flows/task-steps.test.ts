/** Task steps in flow files, run with XState's pure functions: start, result, failures, input while waiting. */
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
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

/** Flows are checked against the registry: the task they start must exist (its code is the engine's). */
const REGISTRY = defineRegistry({ tasks: { find_slots: () => [] } });

function compile(source: string): FlowDefinition {
  const r = compileSources([{ file: 'booking.flow.yaml', source }], REGISTRY, new Map());
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

  it('for a failure no on_error entry takes, tell the person and stay (a command still leads out)', () => {
    const d = atFind(`\n        on_error: [{ code: slot_taken, goto: taken }]`);
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

describe('botflow check on tasks', () => {
  const problems = (task: string, more = '') =>
    compileSources(
      [{ file: 'booking.flow.yaml', source: FLOW(task, more) }],
      REGISTRY,
      new Map(),
    ).problems.map((p) => `${p.line}: ${p.severity}: ${p.message}`);

  it('passes a complete task step', () => {
    expect(problems(ON_ERROR)).toEqual([]);
  });

  it('names an unknown task with the closest registered one', () => {
    const r = compileSources(
      [{ file: 'booking.flow.yaml', source: FLOW(ON_ERROR).replace('task: find_slots', 'task: find_slot') }],
      REGISTRY,
      new Map(),
    ).problems;
    expect(r).toEqual([
      expect.objectContaining({
        line: 18,
        message: 'unknown task "find_slot"',
        hint: 'did you mean "find_slots"?',
      }),
    ]);
  });

  it('names an unknown compensating task (on_cancel) with the closest registered one', () => {
    const r = compileSources(
      [{ file: 'booking.flow.yaml', source: FLOW(`${ON_ERROR}\n        on_cancel: { task: find_slot }`) }],
      REGISTRY,
      new Map(),
    ).problems;
    expect(r).toEqual([
      expect.objectContaining({
        line: 27,
        severity: 'error',
        message: 'unknown task "find_slot" in on_cancel',
        hint: 'did you mean "find_slots"?',
      }),
    ]);
  });

  it('requires an error path, and a message step', () => {
    expect(problems('').filter((p) => p.includes('error'))).toEqual([
      '18: error: task "find_slots" has no on_error: when it fails, the person is left on "find"',
    ]);
    const onInput = FLOW(ON_ERROR).replace(
      '    next: find\n',
      '    next: find\n    do: [{ task: find_slots, on_error: sorry }]\n',
    );
    expect(
      compileSources([{ file: 'booking.flow.yaml', source: onInput }], REGISTRY, new Map()).problems.map(
        (p) => p.message,
      ),
    ).toEqual(['a task runs from a message step, and "party" is an input step']);
  });

  it('warns of input nobody saves, and of a result read before the task ran (lint-vars.ts)', () => {
    const early = FLOW(ON_ERROR)
      .replace('party: "{{party}}"', 'party: "{{guests}}"')
      .replace('say: How many?', 'say: "How many? We have {{slots}}"');
    expect(
      compileSources([{ file: 'booking.flow.yaml', source: early }], REGISTRY, new Map()).problems.map(
        (p) => `${p.severity}: ${p.message}`,
      ),
    ).toEqual([
      'warning: "slots" is unset when the flow starts at "party"',
      'warning: unknown variable "guests" in {{guests}}',
    ]);
  });
});

describe('botflow check on html texts', () => {
  it('warns of a < that the platform would read as a tag and remove', () => {
    const r = compileSources(
      [
        {
          file: 'mail.flow.yaml',
          source:
            'flow: mail\nstart: bye\nsteps:\n  bye: { type: end, say: "Write to <help@example.org>, <b>we</b> answer; 3 < 4" }\n',
        },
      ],
      REGISTRY,
      new Map(),
    );
    expect(r.problems.map((p) => `${p.line}: ${p.message}`)).toEqual([
      `4: "<help@example.org…" reads as an HTML tag (the flow's format is html), which the platform removes`,
    ]);
  });
});
