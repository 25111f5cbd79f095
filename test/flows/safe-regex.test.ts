/** Flow-file patterns cannot stall the bot: linear where V8 can, refused where they could backtrack badly. */
import { describe, expect, it } from 'vitest';
import { isEmail, phoneFromVcf } from '../../src/flows/inputs.ts';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { compileFlowRegex, MAX_REGEX_INPUT, testFlowRegex } from '../../src/flows/safe-regex.ts';

const flow = (extra: string) => `flow: guard
start: ask
triggers:
  - keyword: "/^(a+)+$/i"
  - keyword: "/^(b+)+$/"
  - bot_started: { payload: "/^promo-\\\\d+$/" }
steps:
  ask:
    type: input
    say: "Your code?"
    input: text
    validate:
      - { rule: regex, pattern: "^(\\\\w+\\\\s?)*$", error: "words only" }
${extra}    retries: { max: 2, exhausted: { goto: bye } }
    save: code
    next: bye
  bye:
    type: end
`;

describe('flow-file regular expressions', () => {
  it('botflow check refuses patterns that can backtrack catastrophically, each at its line (the linear engine takes /^(b+)+$/)', () => {
    const { problems } = compileSources(
      [{ file: 'guard.flow.yaml', source: flow('') }],
      EMPTY_REGISTRY,
      new Map(),
    );
    const errors = problems.filter((p) => p.severity === 'error').map(formatProblem);
    expect(errors).toEqual([
      expect.stringMatching(
        /^guard\.flow\.yaml:4:\d+: error: the regular expression \/\^\(a\+\)\+\$\/ may backtrack catastrophically/,
      ),
      expect.stringMatching(
        /^guard\.flow\.yaml:13:\d+: error: the regular expression \/\^\(\\w\+\\s\?\)\*\$\/ may backtrack catastrophically/,
      ),
    ]);
  });

  it('runs patterns on the linear-time engine when it can, and cuts long texts', () => {
    const linear = compileFlowRegex('^(a+)+$');
    expect(linear).toMatchObject({ linear: true }); // without i/u flags V8's linear engine takes even this one
    if ('regex' in linear) expect(testFlowRegex(linear.regex, `${'a'.repeat(40)}!`)).toBe(false);
    const insensitive = compileFlowRegex('^sign ?up$', 'i');
    expect(insensitive).toMatchObject({ linear: false });
    if ('regex' in insensitive) expect(testFlowRegex(insensitive.regex, 'Sign Up')).toBe(true);
    const end = compileFlowRegex('x$');
    if ('regex' in end) expect(testFlowRegex(end.regex, `${'a'.repeat(MAX_REGEX_INPUT)}x`)).toBe(false);
    expect(compileFlowRegex('(')).toMatchObject({
      error: expect.stringMatching(/^is not a valid regular expression/),
    });
  });

  it('checks email addresses in one pass, as the former pattern did', () => {
    for (const ok of ['ann@example.org', 'a@b.cc', 'a@b.cc.d']) expect(isEmail(ok), ok).toBe(true);
    for (const bad of ['a@b.c', 'a@.cc', '@b.cc', 'a@@b.cc', 'a b@c.dd', 'a@bc', `${'a'.repeat(20_000)}@b`])
      expect(isEmail(bad), bad.slice(0, 20)).toBe(false);
  });

  it("reads a shared contact's phone from its vCard's TEL line, in one pass", () => {
    expect(phoneFromVcf('BEGIN:VCARD\r\nFN:Ann\r\nTEL;TYPE=cell:+7 (900) 123-45-67\r\nEND:VCARD')).toBe(
      '+79001234567',
    );
    expect(phoneFromVcf(`BEGIN:VCARD\n${'TEL'.repeat(20_000)}\nEND:VCARD`)).toBeUndefined();
  });
});
