/** botflow check for intents: routes to unknown steps, intents without keywords, unknown classifiers. */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';

const REGISTRY = defineRegistry({ tasks: { nlu_openai: () => ({ intent: null, confidence: 0 }) } });

function check(source: string) {
  const r = compileSources([{ file: 'demo.flow.yaml', source }], REGISTRY, new Map());
  return r.problems.map((p) => ({ line: p.line, severity: p.severity, message: p.message, hint: p.hint }));
}

const FLOW = (understand: string, global = '') => `flow: demo
start: hello
${global}intents:
  book: [table, book]
  human: [human, operator]
steps:
  hello:
    type: menu
    say: Hi
    keyboard: [[{ id: x, text: X, goto: bye }]]
    understand:
${understand}
  handoff: { type: end, say: Wait. }
  bye: { type: end }
`;

describe('botflow check: intents', () => {
  it('accepts a step and global intents that are all declared and lead to steps', () => {
    const ok = check(
      FLOW(
        '      intents: { book: { goto: bye } }\n      unknown: { say: "?" }',
        'understand:\n  intents: { human: { goto: handoff } }\n',
      ),
    );
    expect(ok).toEqual([]);
  });

  it('an intent route to an unknown step, with did-you-mean', () => {
    expect(check(FLOW('      intents: { book: { goto: by } }'))).toContainEqual({
      line: 12,
      severity: 'error',
      message: 'unknown step "by"',
      hint: 'did you mean "bye"?',
    });
  });

  it('an intent with no keywords for the keyword classifier, with did-you-mean', () => {
    expect(check(FLOW('      intents: { boook: { goto: bye } }'))).toContainEqual({
      line: 12,
      severity: 'error',
      message: 'intent "boook" has no keywords for the keyword classifier',
      hint: 'did you mean "book"? Else add intents: { boook: [...] }',
    });
  });

  it('a classifier not in the registry, with did-you-mean; a registered one needs no keywords', () => {
    expect(check(FLOW('      classifier: nlu_opnai\n      intents: { other: { goto: handoff } }'))).toEqual([
      {
        line: 12,
        severity: 'error',
        message: 'unknown classifier "nlu_opnai"',
        hint: 'did you mean "nlu_openai"?',
      },
    ]);
    expect(check(FLOW('      classifier: nlu_openai\n      intents: { other: { goto: handoff } }'))).toEqual(
      [],
    );
  });

  it('global intents must use keywords; an unsafe pattern is refused', () => {
    const lines = check(
      FLOW(
        '      intents: { book: { goto: bye } }',
        'understand:\n  classifier: nlu_openai\n  intents: { human: { goto: handoff } }\n',
      ).replace('[human, operator]', '[human, "/(a+)+$/"]'),
    );
    expect(lines.map((l) => l.message)).toEqual([
      'global intents use the built-in keyword classifier (they are read at every step, at once)',
      expect.stringMatching(/^the regular expression \/\(a\+\)\+\$\/ may backtrack/),
    ]);
  });
});

describe('botflow check: slots', () => {
  const flow = (save: string) => `flow: demo
start: hello
intents:
  party: ["/(?<guests>\\\\d+) people/", "/table for (?<guests>\\\\d+)/"]
steps:
  hello:
    type: menu
    say: Hi
    keyboard: [[{ id: x, text: X, goto: bye }]]
    understand:
      intents: { party: { goto: seats${save} } }
  seats: { type: end, say: "{{guests}} guests." }
  bye: { type: end }
`;
  it('a slot every pattern of the intent reads is set by save_slots; without it, it is unknown', () => {
    expect(check(flow(', save_slots: true'))).toEqual([]);
    expect(check(flow('')).map((p) => p.message)).toEqual(['unknown variable "guests" in {{guests}}']);
  });
});
