/**
 * Built-in variables live as long as what set them (docs/flows.md, "Built-in variables"): each one is set,
 * replaced and cleared at the moments the table there gives, and the table lists every variable botflow
 * sets. Run with XState's pure functions (test/flows/drive.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HANDOFF_EVENTS } from '../../src/engine/step/contract.ts';
import { HANDOFF_REQUEST_REF } from '../../src/engine/step/handoff-lines.ts';
import { BUILTIN_VARS } from '../../src/flows/data-flow.ts';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { Drive } from './drive.ts';

const FLOW = `flow: life
start: look
triggers: [{ bot_started: true }]
handoff: { operators_chat: -500 }
commands: { again: { goto: look }, human: { goto: human } }
steps:
  look:
    type: message
    say: Looking…
    do:
      - task: find_slots
        save_as: slots
        on_error: [{ goto: failed }]
    next: found
  failed:
    type: input
    say: "Failed: {{task_error.code}}"
    input: text
    retries: { max: 3, exhausted: { goto: look } }
    save: x
    next: look
  found:
    type: input
    say: Found.
    input: text
    retries: { max: 3, exhausted: { goto: look } }
    save: y
    next: human
  human: { type: handoff, return_to: found }
`;

function drive(): Drive {
  const registry = defineRegistry({ tasks: { find_slots: () => [] } });
  const r = compileSources([{ file: 'life.flow.yaml', source: FLOW }], registry, new Map());
  expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return new Drive(r.flows[0]!);
}

const ref = 'look:task';
const failed = { type: 'task.failed', task: 'find_slots', ref, error: { code: 'down', message: 'x' } };
const done = { type: 'task.done', task: 'find_slots', ref, result: ['18:00'] };
const operator = (name: string) => ({
  type: 'event',
  name: HANDOFF_EVENTS.take,
  payload: { operator: { id: 7, name } },
});

describe('built-in variables', () => {
  it('task_error: set by a failed task, taken away by a task that ends with a result', () => {
    const d = drive();
    d.send(failed as never);
    expect(d.step).toBe('failed');
    expect(d.vars.task_error).toEqual({ code: 'down', message: 'x' });
    d.command('again');
    d.send(done as never);
    expect(d.step).toBe('found');
    expect(d.vars).not.toHaveProperty('task_error');
    expect(d.vars.slots).toEqual(['18:00']);
  });

  it('handoff: only while the person is at the step; handoff_operator only for the request it took', () => {
    const d = drive();
    d.send(done as never);
    d.text('help');
    expect(d.step).toBe('human');
    d.send({
      type: 'effect.done',
      ref: HANDOFF_REQUEST_REF,
      result: { message: { body: { mid: 'mid.r' } } },
    } as never);
    // The queue's partial index reads this very text in the stored snapshot (store/handoff-queue.ts).
    expect(JSON.stringify(d.snapshot.context)).toContain('"handoff":{"open":true}');
    d.send(operator('Ann') as never);
    expect(d.vars).toMatchObject({ handoff: { open: true }, handoff_operator: 'Ann' });

    d.send({
      type: 'event',
      name: HANDOFF_EVENTS.done,
      payload: { operator: { id: 7, name: 'Ann' } },
    } as never);
    expect(d.step).toBe('found');
    expect(d.vars).not.toHaveProperty('handoff');
    // The facts of the request stay for the step it returns to, until the next request.
    expect(d.vars).toMatchObject({ handoff_operator: 'Ann', handoff_person: 'user 7', handoff_place: 1 });

    d.text('again please');
    expect(d.step).toBe('human');
    expect(d.vars).toMatchObject({ handoff: { open: true } });
    expect(d.vars).not.toHaveProperty('handoff_operator');
    // Any other way out takes the request away too (a command here).
    d.command('again');
    expect(d.vars).not.toHaveProperty('handoff');
  });

  it('are all in the table of docs/flows.md', () => {
    const docs = readFileSync(new URL('../../docs/flows.md', import.meta.url), 'utf8');
    const table = docs.slice(docs.indexOf('### Built-in variables'));
    const rows = new Set([...table.matchAll(/^\| `([a-z_]+)`/gm)].map((m) => m[1]));
    expect([...rows].sort()).toEqual(Object.keys(BUILTIN_VARS).sort());
  });
});
