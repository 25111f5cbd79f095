/**
 * A registered classifier declares the slots each intent may carry (defineClassifier({ slots })): the
 * variables `save_slots` sets are then known to botflow check (names and fields), as the keyword
 * classifier's pattern groups are; an undeclared one gets a note saying how to declare them.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileSources } from '../../src/flows/load.ts';
import { defineClassifier, defineRegistry } from '../../src/flows/registry.ts';

const registry = defineRegistry({
  tasks: {
    nlu: defineClassifier({
      slots: { book: { day: z.string(), party: z.object({ adults: z.number(), kids: z.number() }) } },
      run: () => ({ intent: null, confidence: 0 }),
    }),
  },
});

const flow = (intent: string, say: string) => `flow: demo
start: hello
steps:
  hello:
    type: menu
    say: Hi
    keyboard: [[{ id: x, text: X, goto: bye }]]
    understand:
      classifier: nlu
      intents: { ${intent}: { goto: booked, save_slots: true } }
  booked: { type: end, say: "${say}" }
  bye: { type: end }
`;

function check(source: string) {
  const r = compileSources([{ file: 'demo.flow.yaml', source }], registry, new Map());
  return r.problems.map((p) => `${p.line}: ${p.severity}: ${p.message}${p.hint ? ` (${p.hint})` : ''}`);
}

describe('botflow check: a registered classifier slots', () => {
  it('the slots it declares for the intent are variables after save_slots, with their fields', () => {
    expect(check(flow('book', '{{day}}, {{party.adults}} adults'))).toEqual([]);
    expect(check(flow('book', '{{party.adult}}'))).toEqual([
      '11: error: "party" has no field "adult" (did you mean "party.adults"? (slot party of nlu (fields: adults, kids)))',
    ]);
  });

  it('an intent it declares no slots for: a note says how, and the reads stay unknown', () => {
    expect(check(flow('cancel', '{{day}}'))).toEqual([
      '10: note: classifier "nlu" declares no slots for intent "cancel": check cannot know the variables save_slots sets (declare them: defineClassifier({ slots: { cancel: { day: z.string() } }, run }))',
      '11: warning: unknown variable "day" in {{day}} (no step saves it: save it with an input (save: day) or set it (set: { day: … }))',
    ]);
  });
});
