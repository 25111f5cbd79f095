/** botflow check reads a task's `input:` against the task's zod input schema, as it reads its result. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { defineRegistry, defineTask } from '../../src/flows/registry.ts';

const registry = defineRegistry({
  tasks: {
    order_pizza: defineTask({
      input: z.object({
        pizza: z.string(),
        size: z.enum(['small', 'large']).optional(),
        qty: z.number().int().default(1),
      }),
      run: async () => ({ id: 1 }),
    }),
    strict_one: defineTask({ input: z.strictObject({ id: z.string() }), run: async () => 1 }),
    loose_one: defineTask({ input: z.looseObject({ id: z.string() }), run: async () => 1 }),
    plain: async () => 1,
  },
});

const flow = (input: string, task = 'order_pizza') => `flow: shop
start: pick
steps:
  pick:
    type: input
    say: Which pizza?
    input: text
    retries: { max: 2, exhausted: { goto: bye } }
    save: pizza
    next: order
  order:
    type: message
    say: Ordering…
    do:
      - task: ${task}
        input: ${input}
        on_error: { say: "Sorry.", goto: bye }
    next: bye
  bye:
    type: end
`;

function check(source: string) {
  const r = compileSources([{ file: 'shop.flow.yaml', source }], registry, new Map());
  return r.problems.filter((p) => p.severity === 'error').map((p) => formatProblem(p));
}

describe('botflow check: a task input against its schema', () => {
  it('a misspelt required field: unknown field (did you mean) and the required one missing, at their lines', () => {
    expect(check(flow('{ pizz: "{{pizza}}" }'))).toEqual([
      expect.stringMatching(
        /^shop\.flow\.yaml:16:9: error: task "order_pizza" needs the input field "pizza", and the flow does not give it\n {4}hint: add it: input: \{ pizza: "\{\{variable\}\}" \} \(is "pizz" meant to be "pizza"\?\)$/,
      ),
      expect.stringMatching(
        /^shop\.flow\.yaml:16:18: error: task "order_pizza" has no input field "pizz": zod would drop it, and the task would never see it\n {4}hint: did you mean "pizza"\?$/,
      ),
    ]);
  });

  it('a misspelt optional field is an error too (zod would strip it without a word)', () => {
    const errors = check(flow('{ pizza: "{{pizza}}", szie: large }'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('has no input field "szie"');
    expect(errors[0]).toContain('did you mean "size"?');
  });

  it('a literal of the wrong type says what was expected and what is written', () => {
    const errors = check(flow('{ pizza: "{{pizza}}", size: huge, qty: two }'));
    expect(errors).toEqual([
      expect.stringContaining(
        'input "size" of task "order_pizza": expected one of "small", "large", got a text "huge"',
      ),
      expect.stringContaining('input "qty" of task "order_pizza": expected a number, got a text "two"'),
    ]);
  });

  it('a variable of a known type copied into a field of another type', () => {
    expect(check(flow('{ pizza: "{{pizza}}", qty: "{{pizza}}" }'))).toEqual([
      expect.stringContaining(
        'input "qty" of task "order_pizza" copies "pizza", a text, and the task\'s schema wants a number',
      ),
    ]);
  });

  it('copied and computed values, optional and defaulted fields pass', () => {
    expect(check(flow('{ pizza: "{{pizza}}", qty: "= 1 + 1" }'))).toEqual([]);
    expect(check(flow('{ pizza: margherita, size: small, qty: 2 }'))).toEqual([]);
  });

  it('a strict schema refuses extra fields; a loose one and a plain function take anything', () => {
    expect(check(flow('{ id: "{{pizza}}", extra: 1 }', 'strict_one'))).toEqual([
      expect.stringContaining('task "strict_one" has no input field "extra": its schema refuses it'),
    ]);
    expect(check(flow('{ id: "{{pizza}}", extra: 1 }', 'loose_one'))).toEqual([]);
    expect(check(flow('{ anything: 1 }', 'plain'))).toEqual([]);
  });

  it('no input at all: the required field is reported at the task', () => {
    const source = flow('{}').replace('        input: {}\n', '');
    expect(check(source)).toEqual([
      expect.stringContaining('task "order_pizza" needs the input field "pizza"'),
    ]);
  });
});
