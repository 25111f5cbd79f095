/**
 * Every problem of `botflow check` says where it ends as well as where it starts, covering exactly the
 * faulty text (a name, a key, an anchor, a broken catalog line), never the rest of the file; and the
 * campaign files' and transcripts' did-you-means carry fixes too.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCampaignSource, knownFlows } from '../../src/cli/campaign-check.ts';
import { loadFlows } from '../../src/flows/load.ts';
import { PROBLEM_CODES } from '../../src/flows/problem-codes.ts';
import type { Problem } from '../../src/flows/problems.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { applyFix, checkFiles, type Files, spanOf, textOf } from './problem-project.ts';

const DEMO = `flow: demo
start: ask_name
steps:
  ask_name:
    type: input
    say: Your name?
    input: text
    retries: { max: 2, exhausted: { goto: bye } }
    save: name
    next: greet
  greet:
    type: message
    say: Hi {{name}}!
    next: bye
  bye:
    type: end
`;
const FILE = 'flows/demo.flow.yaml';

/** The one problem of `files` with `code`, and the text it covers. */
function covered(files: Files, code: Problem['code']): { problem: Problem; text: string } {
  const problems = checkFiles(files);
  const found = problems.filter((p) => p.code === code);
  expect(found, JSON.stringify(problems, null, 2)).toHaveLength(1);
  const problem = found[0]!;
  return { problem, text: textOf(files[problem.file]!, spanOf(problem)) };
}

describe('where a problem starts and ends', () => {
  it('a goto to an unknown step covers the step id only', () => {
    const { problem, text } = covered({ [FILE]: DEMO.replace('next: greet', 'next: gret') }, 'unknown-step');
    expect(text).toBe('gret');
    expect(problem).toMatchObject({ line: 10, col: 11, endLine: 10, endCol: 15 });
  });

  it('an unknown key covers the key, not its value', () => {
    expect(covered({ [FILE]: DEMO.replace('    say: Hi', '    sya: Hi') }, 'unknown-key').text).toBe('sya');
  });

  it('an unreachable step covers its id (the key), not the whole step', () => {
    const orphan = `${DEMO}  orphan:\n    type: end\n    say: Nobody comes here.\n`;
    expect(covered({ [FILE]: orphan }, 'unreachable-step').text).toBe('orphan');
  });

  it('a problem of a whole step covers its first line only', () => {
    const handoff = DEMO.replace(
      '  bye:\n',
      '  human:\n    type: handoff\n    return_to: bye\n  bye:\n',
    ).replace('next: bye\n  human', 'next: human\n  human');
    expect(covered({ [FILE]: handoff }, 'handoff-no-operators').text).toBe('type: handoff');
  });

  it('a misspelt variable in a text covers the name inside the braces', () => {
    const { problem, text } = covered({ [FILE]: DEMO.replace('{{name}}', '{{nmae}}') }, 'unknown-variable');
    expect(text).toBe('nmae');
    expect(problem.fixes?.[0]?.edits).toEqual([
      { file: FILE, line: 13, col: 15, endLine: 13, endCol: 19, newText: 'name' },
    ]);
  });

  it('a YAML syntax error covers a part of one line', () => {
    const { problem } = covered(
      { [FILE]: DEMO.replace('say: Your name?', 'say: Name: yours?') },
      'yaml-syntax',
    );
    expect(problem.line).toBe(6);
    expect(problem.endLine).toBe(6);
    expect(problem.endCol!).toBeGreaterThan(problem.col);
  });

  it('anchors and aliases cover the &name and the *name', () => {
    const files = {
      [FILE]: DEMO.replace(
        '{ max: 2, exhausted: { goto: bye } }',
        '&tries { max: 2, exhausted: { goto: bye } }',
      ).replace('    type: end\n', '    type: end\n    set: { again: *tries }\n'),
    };
    expect(covered(files, 'yaml-anchor').text).toBe('&tries');
    expect(covered(files, 'yaml-alias').text).toBe('*tries');
  });

  it("a catalog's broken entry covers its line, and a misspelt $variable the $name (with a fix)", async () => {
    const i18n = DEMO.replace(
      'start: ask_name\n',
      'start: ask_name\ni18n: { default_locale: en, locales: [en] }\n',
    )
      .replace('say: Your name?', 'say: ask-name')
      .replace('say: Hi {{name}}!', 'say: hi');
    const files = { [FILE]: i18n, 'flows/locales/en.ftl': 'ask-name = Your name?\nhi = Hi { $nmae }!\n' };
    const { problem, text } = covered(files, 'unknown-variable');
    expect([problem.file, text]).toEqual(['flows/locales/en.ftl', '$nmae']);
    expect(checkFiles(applyFix(files, problem.fixes![0]!))).toEqual([]);
    const dir = mkdtempSync(join(tmpdir(), 'botflow-ranges-'));
    const ftl = 'ask-name = Your name?\nhi = Hi { $name }!\nbye = { oops\n';
    mkdirSync(join(dir, 'locales'));
    writeFileSync(join(dir, 'demo.flow.yaml'), i18n);
    writeFileSync(join(dir, 'locales/en.ftl'), ftl);
    const { problems } = await loadFlows(dir, { registry: EMPTY_REGISTRY });
    rmSync(dir, { recursive: true, force: true });
    expect(problems.map((p) => [p.code, textOf(ftl, spanOf(p))])).toEqual([
      ['broken-fluent-entry', 'bye = { oops'],
    ]);
  });

  it('every problem of a broken file has an end after its start, and a known code', () => {
    const broken = DEMO.replace('next: greet', 'next: gret')
      .replace('type: message', 'type: mesage')
      .replace('    save: name\n', '    save: name\n    colour: red\n');
    const problems = checkFiles({ [FILE]: broken });
    expect(problems.length).toBeGreaterThan(1);
    for (const p of problems) {
      const end = spanOf(p);
      expect(end.endLine * 1000 + end.endCol).toBeGreaterThan(p.line * 1000 + p.col);
      expect(Object.keys(PROBLEM_CODES)).toContain(p.code);
    }
  });
});

describe('campaign files and transcripts', () => {
  const known = knownFlows([{ file: FILE, source: DEMO }], EMPTY_REGISTRY);
  const FILE_C = 'campaigns/hello.campaign.yaml';

  it('a misspelt flow in a campaign covers the id, and its fix names the flow', () => {
    const source = 'flow: demo\nsegment: { where: { flow: { id: deom, ended_at: bye } } }\n';
    const problems = checkCampaignSource(source, FILE_C, known);
    const p = problems.find((x) => x.code === 'unknown-flow')!;
    expect(textOf(source, spanOf(p))).toBe('deom');
    const fixed = applyFix({ [FILE_C]: source }, p.fixes![0]!)[FILE_C]!;
    expect(checkCampaignSource(fixed, FILE_C, known).filter((x) => x.code === 'unknown-flow')).toEqual([]);
  });

  it.each([
    ['unknown-flow', 'flow: deom\n', 'deom'],
    ['unused-variable', 'flow: demo\nwith: { nmae: Ann }\n', 'nmae'],
    ['unknown-tag', 'flow: demo\nsegment: { where: { tags: { any: [vipp] } } }\n', 'vipp'],
    ['unknown-variable', 'flow: demo\nsegment: { where: { vars: { nam: Ann } } }\n', 'nam'],
    ['unknown-step', 'flow: demo\nsegment: { where: { flow: { id: demo, ended_at: by } } }\n', 'by'],
    ['unknown-key', 'flow: demo\nsegmnt: { where: {} }\n', 'segmnt'],
  ] as const)(
    'a campaign file: %s covers the faulty text, and its fix removes the problem',
    (code, source, faulty) => {
      const withTag = knownFlows(
        [{ file: FILE, source: DEMO.replace('    type: end\n', '    type: end\n    tag: vip\n') }],
        EMPTY_REGISTRY,
      );
      const p = checkCampaignSource(source, FILE_C, withTag).find((x) => x.code === code);
      expect(p && textOf(source, spanOf(p))).toBe(faulty);
      const fixed = applyFix({ [FILE_C]: source }, p!.fixes![0]!)[FILE_C]!;
      expect(checkCampaignSource(fixed, FILE_C, withTag).filter((x) => x.code === code)).toEqual([]);
    },
  );

  it('a misspelt key of a transcript covers the key, and its fix is the key meant', () => {
    const source = 'flow: demo\nname: greets\nturns:\n  - say: hi\n    bto: nothing\n';
    const [p] = parseTranscripts(source, 'demo.test.yaml').problems;
    expect(p).toMatchObject({ code: 'unknown-key', line: 5, col: 5, endLine: 5, endCol: 8 });
    const fixed = applyFix({ 'demo.test.yaml': source }, p!.fixes![0]!)['demo.test.yaml']!;
    expect(parseTranscripts(fixed, 'demo.test.yaml').problems).toEqual([]);
  });

  it('a misspelt kind of expectation in a transcript: its fix is the kind meant', () => {
    const source = 'flow: demo\nname: greets\nturns:\n  - say: hi\n    bot: { sned: Hi }\n';
    const [p] = parseTranscripts(source, 'demo.test.yaml').problems;
    expect([p?.code, p && textOf(source, spanOf(p)), p?.fixes?.[0]?.title]).toEqual([
      'unknown-key',
      'sned',
      'Change to "send"',
    ]);
    const fixed = applyFix({ 'demo.test.yaml': source }, p!.fixes![0]!)['demo.test.yaml']!;
    expect(parseTranscripts(fixed, 'demo.test.yaml').problems).toEqual([]);
  });
});
