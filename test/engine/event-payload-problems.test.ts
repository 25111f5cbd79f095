/**
 * An event whose payload lacks a required field is refused with words a sender can act on: which field,
 * in which event, what it should be and what to do (zod alone says "Invalid option: expected one of …"
 * for a missing enum field). Through the engine's door (`engine.events.send`) on SQLite.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { EventInvalidError } from '../../src/inbox/event-entry.ts';
import { type Conformance, openConformance } from '../support/engine-conformance.ts';

const LAB = `flow: lab
start: wait
triggers: [{ bot_started: true }]
events:
  lab_ready:
    payload:
      type: object
      properties:
        status: { enum: [normal, abnormal] }
        test: { type: string }
      required: [status, test]
steps:
  wait:
    type: wait
    say: We will tell you when your results are in.
    on_event:
      lab_ready: { save_as: lab, goto: done }
  done: { type: end, say: "Your {{lab.test}} results: {{lab.status}}." }
`;

const registry = defineRegistry({
  events: { refund_issued: z.object({ amount: z.number().positive(), currency: z.enum(['EUR', 'USD']) }) },
});

function flows() {
  const r = compileSources([{ file: 'lab.flow.yaml', source: LAB }], registry, new Map());
  expect(r.problems).toEqual([]);
  return r.flows;
}

let h: Conformance | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('an event payload without a required field', () => {
  it('is refused naming the field, the event, what it should be and what to do', async () => {
    h = await openConformance('sqlite', flows);
    const sent = h.engine.events.send({ name: 'lab_ready', to: { userId: 3 }, payload: { test: 'CBC' } });
    await expect(sent).rejects.toBeInstanceOf(EventInvalidError);
    await expect(sent).rejects.toMatchObject({
      problems: [
        'payload.status: missing, and event "lab_ready" requires it (one of "normal", "abnormal"): send the event with "status" in its payload',
      ],
    });
    expect(h.engine.events.check('lab_ready', { status: 'fine', test: 'CBC' })).toEqual([
      'payload.status: expected one of "normal", "abnormal", got a text "fine" (event "lab_ready")',
    ]);
    // The registry's zod schema: the same words.
    expect(h.engine.events.check('refund_issued', { amount: 'ten' })).toEqual([
      'payload.amount: expected a number, got a text "ten" (event "refund_issued")',
      'payload.currency: missing, and event "refund_issued" requires it (one of "EUR", "USD"): send the event with "currency" in its payload',
    ]);
    expect(h.engine.events.check('refund_issued', { amount: -1, currency: 'EUR' })).toEqual([
      expect.stringMatching(/^payload\.amount: Too small: .*\(event "refund_issued"\)$/),
    ]);
    expect(await h.rows("SELECT id FROM inbox WHERE kind = 'event'")).toEqual([]);
  });
});
