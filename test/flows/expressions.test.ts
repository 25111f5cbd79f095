/** Computed values in flow files: `set:` values written "= …" and `{expr: …}` conditions. */
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { computeSet, ExpressionError, evaluateExpression } from '../../src/flows/expressions.ts';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { Drive } from './drive.ts';

const NOW = Date.UTC(2026, 2, 15, 12); // 2026-03-15
const en = { now: NOW, locale: 'en' };

function compileAll(source: string) {
  return compileSources([{ file: 'demo.flow.yaml', source }], EMPTY_REGISTRY, new Map());
}
function compile(source: string): FlowDefinition {
  const r = compileAll(source);
  expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return r.flows[0]!;
}

describe('expressions', () => {
  it('compute with numbers, texts, lists and conditions over the variables', () => {
    const vars = { party: 4, name: ' Ann ', slots: ['18:00', '19:00'], contact: { city: 'Riga' } };
    expect(evaluateExpression('= party * 2 + 1', vars, en)).toBe(9);
    expect(evaluateExpression('upper(trim(name))', vars, en)).toBe('ANN');
    expect(evaluateExpression('len(slots) == 2 and contains(slots, "19:00")', vars, en)).toBe(true);
    expect(evaluateExpression('if party >= 6 then "large" else "small"', vars, en)).toBe('small');
    expect(evaluateExpression('concat("City: ", contact.city)', vars, en)).toBe('City: Riga');
    expect(evaluateExpression('exists(missing)', vars, en)).toBe(false);
    expect(evaluateExpression('number("2,5") * 2', vars, en)).toBe(5);
  });

  it("reads dates on the engine's clock and formats for the person's locale", () => {
    expect(evaluateExpression('today()', {}, en)).toBe('2026-03-15');
    expect(evaluateExpression('add_days(today(), 30)', {}, en)).toBe('2026-04-14');
    expect(evaluateExpression('days_between(today(), "2026-04-01")', {}, en)).toBe(17);
    expect(evaluateExpression('date("+1w")', {}, en)).toBe('2026-03-22');
    expect(evaluateExpression('format_number(1234.5, 2)', {}, en)).toBe('1,234.50');
    expect(evaluateExpression('format_number(1234.5, 2)', {}, { ...en, locale: 'ru' })).toBe('1\u00a0234,50');
    expect(evaluateExpression('format_date("2026-03-02")', {}, en)).toBe('March 2, 2026');
    expect(evaluateExpression('format_date("2026-03-02")', {}, { ...en, locale: 'ru' })).toBe(
      '2 марта 2026 г.',
    );
  });

  it('refuses what cannot be read, unknown functions, and values of the wrong kind, naming the expression', () => {
    expect(() => evaluateExpression('party *', {}, en)).toThrow(ExpressionError);
    expect(() => evaluateExpression('system("rm")', {}, en)).toThrow(/unknown function system\(\)/);
    expect(() => evaluateExpression('upper(party)', { party: 4 }, en)).toThrow(/"upper\(party\)" failed/);
    // No way out of the sandbox: JavaScript's globals and prototypes are not variables.
    expect(evaluateExpression('constructor', {}, en)).toBeNull();
    expect(evaluateExpression('process', {}, en)).toBeNull();
  });

  it('computes set: values in order, a later one reading an earlier one; constants stay as written', () => {
    const set = { total: '= price * party', label: '= concat(text(total), " EUR")', note: 'as is' };
    expect(computeSet(set, { price: 12, party: 3 }, en)).toEqual({
      total: 36,
      label: '36 EUR',
      note: 'as is',
    });
  });
});

describe('computed values in a flow', () => {
  const FLOW = `
flow: demo
start: ask_party
steps:
  ask_party:
    type: input
    say: How many?
    input: integer
    retries: { max: 3, exhausted: { goto: done } }
    save: party
    next:
      - when: { expr: "party >= 6" }
        goto: large
      - goto: menu
  menu:
    type: menu
    say: "Table for {{party}}, {{price}} each: {{total}}"
    keyboard:
      - - { id: ok, text: OK, goto: done, set: { total: "= party * price", due: "= add_days(today(), 1)" } }
  large:
    type: end
    say: Please call us for {{party}} people.
  done:
    type: end
    say: "Total {{total}}, due {{due}}."
`;

  it('branches on an expression and sets computed values on a button', () => {
    const d = new Drive(compile(FLOW.replace('steps:', 'defaults: {}\nsteps:')));
    d.snapshot.context.vars.price = 10;
    d.text('3');
    expect(d.step).toBe('menu');
    d.send({
      type: 'button',
      button: 'ok',
      callbackId: 'cb',
      meta: { conversation: 'c1', now: NOW },
    } as never);
    expect(d.step).toBe('done');
    expect(d.vars).toMatchObject({ party: 3, total: 30, due: '2026-03-16' });
    const large = new Drive(compile(FLOW));
    large.text('8');
    expect(large.step).toBe('large');
  });

  it('is checked by botflow check at the expression', () => {
    const broken = FLOW.replace('"= party * price"', '"= party * "').replace('"party >= 6"', '"party >="');
    const errors = (source: string) => compileAll(source).problems.filter((p) => p.severity === 'error');
    expect(errors(broken).map((p) => `${p.line}: ${p.message}`)).toEqual([
      '12: cannot read "party >=": at column 9, expected -, not, if, (, Number, Symbol, String but found the end',
      '19: cannot read "party *": at column 8, expected -, not, if, (, Number, Symbol, String but found the end',
    ]);
    const unknown = errors(FLOW.replace('add_days(today(), 1)', 'tomorrow()'));
    expect(unknown.map((p) => p.message)).toEqual([expect.stringMatching(/unknown function tomorrow\(\)/)]);
  });
});
