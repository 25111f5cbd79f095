/** Shape mistakes get messages that say what to do, not zod's "Invalid input" or the YAML parser's words. */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';

const good = `flow: demo
start: ask
steps:
  ask:
    type: input
    say: Age?
    input: integer
    validate:
      - rule: range
        min: 1
    retries: { max: 2, exhausted: { goto: bye } }
    save: age
    next: bye
  bye:
    type: end
`;
const check = (source: string) =>
  compileSources([{ file: 'demo.flow.yaml', source }], EMPTY_REGISTRY, new Map()).problems.map(formatProblem);

describe('botflow check: the shape of a flow file', () => {
  it('passes the well-indented file', () => {
    expect(check(good)).toEqual([]);
  });

  it('says a key is indented under the key above it, and how far to move it (once, not also "required")', () => {
    const deep = good
      .replace('        min: 1\n', '        min: 1\n        next: bye\n')
      .replace('    next: bye\n  bye', '  bye');
    expect(check(deep)).toEqual([
      'demo.flow.yaml:11:9: error: steps.ask.validate.0: "next" is indented under "validate": move it 4 spaces left\n' +
        '    hint: "next" belongs beside "validate", at the same indentation',
    ]);
  });

  it('names where an unknown key belongs', () => {
    expect(
      check(good.replace('    save: age\n', '    save: age\n    on_text: { say: Buttons please }\n')),
    ).toEqual([
      'demo.flow.yaml:13:5: error: steps.ask: unknown key "on_text"\n' +
        '    hint: "on_text" is a key of menu steps, not of this place; allowed here: type, set, say, media, do, tag, untag, remind, idle, on_stale, render, on_error, input, options, options_from, columns, error, validate, retries, save, understand, time_zone, keyboard, on_event, next',
    ]);
  });

  it('says what a value should be instead of "Invalid input"', () => {
    expect(check(good.replace('    next: bye\n  bye', '    next: { goto: bye }\n  bye'))).toEqual([
      'demo.flow.yaml:13:11: error: steps.ask.next: expected a text or a list, not { goto }\n' +
        '    hint: write next: <step id>, or a list: next: [{ when: {…}, goto: a }, { goto: b }]',
    ]);
  });

  it("turns the YAML parser's errors into what to do", () => {
    expect(check(good.replace('say: Age?', 'say: Age: how old?'))).toEqual([
      'demo.flow.yaml:6:10: error: YAML syntax: Nested mappings are not allowed in compact mappings\n' +
        '    hint: the value contains ": ", which starts a key: put the whole value in "double quotes"',
    ]);
    expect(
      check(good.replace('  bye:\n    type: end', '  bye:\n\ttype: end')).map((l) => l.split('\n')[1]),
    ).toContain('    hint: indent with spaces, not tabs');
  });
});
