/** Whole numbers, and text rules that read what the person typed; check refuses rules that cannot pass. */
import { describe, expect, it } from 'vitest';
import type { FlowEvent } from '../../src/engine/step/contract.ts';
import { readAnswer } from '../../src/flows/inputs.ts';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import type { InputStep } from '../../src/flows/schema.ts';

const said = (text: string) =>
  ({
    type: 'message',
    text,
    attachments: [],
    message: {},
    meta: { conversation: 'u:1', chatId: 1, userId: 1, now: 0 },
  }) as unknown as FlowEvent;

function step(input: InputStep['input'], validate: InputStep['validate'] = []): InputStep {
  return {
    type: 'input',
    say: 'How many?',
    input,
    validate,
    retries: { max: 2, exhausted: { goto: 'x' } },
    save: 'n',
  } as InputStep;
}

const answer = (s: InputStep, text: string) =>
  readAnswer(s, said(text), { vars: {}, locale: 'en', registry: EMPTY_REGISTRY, now: 0 });

describe('input kinds and rules', () => {
  it('integer takes whole numbers only: "2,5" guests is no answer', () => {
    expect(answer(step('integer'), ' 4 ')).toEqual({ ok: true, value: 4 });
    expect(answer(step('integer'), '2,5')).toEqual({
      ok: false,
      error: { builtin: 'error-integer' },
    });
    expect(answer(step('integer'), '2.5')).toMatchObject({ ok: false });
    expect(answer(step('number'), '2,5')).toEqual({ ok: true, value: 2.5 }); // a decimal is a number
  });

  it('regex and length rules read the typed text, so they can pass for numbers', () => {
    const twoDigits = step('integer', [{ rule: 'regex', pattern: '^\\d{2}$', error: 'two digits' }]);
    expect(answer(twoDigits, '42')).toEqual({ ok: true, value: 42 });
    expect(answer(twoDigits, '7')).toEqual({ ok: false, error: { flowText: 'two digits' } });
    const short = step('number', [{ rule: 'length', max: 3, error: 'short' }]);
    expect(answer(short, '1234')).toEqual({ ok: false, error: { flowText: 'short' } });
  });

  it('botflow check refuses a rule that can never pass for the input kind', () => {
    const flow = `flow: party
start: ask
steps:
  ask:
    type: input
    say: "Where are you?"
    input: location
    validate:
      - { rule: range, min: 1, max: 10 }
    retries: { max: 2, exhausted: { goto: done } }
    save: where
    next: done
  done:
    type: end
`;
    const { problems } = compileSources(
      [{ file: 'party.flow.yaml', source: flow }],
      EMPTY_REGISTRY,
      new Map(),
    );
    expect(problems.map(formatProblem)).toEqual([
      expect.stringMatching(/^party\.flow\.yaml:9:\d+: error: rule range can never pass for input location/),
    ]);
  });
});
