import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileSources, loadFlows } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { loadCatalog } from '../../src/flows/texts.ts';

const registry = defineRegistry({ validators: { not_disposable: () => true } });

/** Problems of one file as `file:line:col: severity: message`, hints left out. */
function check(source: string, opts: { catalogs?: Record<string, string>; file?: string } = {}) {
  const catalogs = new Map(
    Object.entries(opts.catalogs ?? {}).map(([l, src]) => [l, loadCatalog(l, `locales/${l}.ftl`, src)]),
  );
  const file = opts.file ?? 'demo.flow.yaml';
  const r = compileSources([{ file, source }], registry, catalogs);
  return {
    ...r,
    lines: r.problems.map((p) => formatProblem({ ...p, hint: undefined })),
    hints: r.problems.map((p) => p.hint),
  };
}

const good = `flow: demo
start: ask_age
steps:
  ask_age:
    type: input
    say: How old are you?
    input: number
    retries: { max: 2, exhausted: { goto: bye } }
    save: age
    next: bye
  bye:
    type: end
`;

describe('botflow check: every problem points at file:line:col', () => {
  it('accepts a good file', () => {
    expect(check(good).problems).toEqual([]);
  });

  it('reports a YAML syntax error where it is', () => {
    const r = check(good.replace('    input: number', '    input: number\n   oops: [1, 2'));
    expect(r.lines[0]).toMatch(/^demo\.flow\.yaml:\d+:\d+: error: YAML syntax: /);
    expect(r.flows).toEqual([]);
    expect(Number(r.lines[0]!.split(':')[1])).toBeGreaterThanOrEqual(8);
  });

  it('reports an unknown key with a did-you-mean hint', () => {
    const r = check(good.replace('    save: age', '    sav: age'));
    expect(r.lines).toEqual(['demo.flow.yaml:9:5: error: steps.ask_age: unknown key "sav"']);
    expect(r.hints).toEqual(['did you mean "save"?']);
  });

  it('hints from the format itself: nested unknown keys, misspelt values, unknown step types', () => {
    const menu = `flow: demo
start: m
steps:
  m:
    type: menu
    render: edt
    keyboard: [[{ id: x, txt: X, goto: m }]]
  n:
    type: inptu
`;
    const r = check(menu);
    expect(r.lines).toEqual([
      'demo.flow.yaml:6:13: error: steps.m.render: "edt" is not one of new, edit',
      'demo.flow.yaml:7:17: error: steps.m.keyboard.0.0.text: is required',
      'demo.flow.yaml:7:26: error: steps.m.keyboard.0.0: unknown key "txt"',
      'demo.flow.yaml:9:11: error: steps.n.type: unknown step type "inptu"',
    ]);
    expect(r.hints).toEqual([
      'did you mean "edit"?',
      'add "text"',
      'did you mean "text"?',
      'did you mean "input"? type is one of message, input, menu, wait, branch, call, end, handoff',
    ]);
  });

  it('reports a missing required key at its parent', () => {
    const r = check(good.replace('    retries: { max: 2, exhausted: { goto: bye } }\n', ''));
    expect(r.lines[0]).toMatch(/^demo\.flow\.yaml:5:5: error: steps\.ask_age\.retries: /);
    expect(r.lines[0]).toContain('so that nobody gets stuck');
  });

  it('reports an unknown step with the closest id', () => {
    const r = check(good.replace('    next: bye', '    next: by'));
    expect(r.lines).toEqual(['demo.flow.yaml:10:11: error: unknown step "by"']);
    expect(r.hints).toEqual(['did you mean "bye"?']);
  });

  it('reports unknown validators, guards, effects and flows', () => {
    const r = check(
      good
        .replace('    save: age', '    save: age\n    validate:\n      - { rule: not_disposabel }')
        .replace(
          '    next: bye',
          '    next:\n      - { when: { guard: adult }, goto: bye }\n      - { goto: help }',
        )
        .replace(
          '  bye:\n    type: end',
          '  help:\n    type: call\n    flow: helpp\n    next: bye\n  bye:\n    type: end\n    do: [{ effect: crm }]',
        ),
    );
    expect(r.lines).toEqual([
      'demo.flow.yaml:11:17: error: unknown validator "not_disposabel"',
      'demo.flow.yaml:13:26: error: unknown guard "adult"',
      'demo.flow.yaml:17:11: error: unknown flow "helpp"',
      'demo.flow.yaml:21:20: error: unknown effect "crm"',
    ]);
    expect(r.hints[0]).toBe('did you mean "not_disposable"?');
  });

  it('reports platform limits: buttons per row, label length, text length', () => {
    const buttons = Array.from({ length: 8 }, (_, i) => `{ id: b${i}, text: "B${i}", goto: bye }`).join(', ');
    const menu = `flow: demo
start: menu
steps:
  menu:
    type: menu
    say: "${'x'.repeat(4001)}"
    keyboard:
      - [${buttons}]
      - [{ id: long, text: "${'y'.repeat(129)}", goto: bye }]
  bye:
    type: end
`;
    const r = check(menu);
    expect(r.lines).toEqual([
      'demo.flow.yaml:6:10: error: text is 4001 characters long; the limit is 4000: shorten it or split it',
      'demo.flow.yaml:8:9: error: keyboard buttons[0] has 8 buttons; the limit is 7 per row',
      'demo.flow.yaml:9:28: error: button text is 129 characters; it must be 1..128',
    ]);
  });

  it('reports a message id missing in one locale, at the text that uses it', () => {
    const src = `flow: demo
start: hello
i18n: { default_locale: en }
steps:
  hello:
    type: message
    say: greeting
    next: bye
  bye:
    type: end
    say: farewell
`;
    const r = check(src, { catalogs: { en: 'greeting = Hi\nfarewell = Bye\n', ru: 'greeting = Привет\n' } });
    expect(r.lines).toEqual(['demo.flow.yaml:11:10: error: message "farewell" is missing in locale ru']);
    expect(r.hints).toEqual(['add "farewell = …" to locales/ru.ftl']);
  });

  it('warns about unreachable steps and refuses an input without an exhausted goto', () => {
    const r = check(
      good.replace('exhausted: { goto: bye }', 'exhausted: { say: sorry }') + '  orphan:\n    type: end\n',
    );
    expect(r.lines).toEqual([
      'demo.flow.yaml:8:35: error: input "ask_age" has no exhausted path: after 2 failures the person would be stuck',
      'demo.flow.yaml:13:3: warning: step "orphan" is unreachable',
    ]);
  });

  it('reports duplicate step ids, anchors, and a media file that does not exist', () => {
    const dup = check(
      good.replace('  bye:\n    type: end\n', '  bye:\n    type: end\n  bye:\n    type: end\n'),
    );
    expect(dup.lines[0]).toMatch(/^demo\.flow\.yaml:13:3: error: YAML syntax: Map keys must be unique/);
    const anchor = check(good.replace('    retries: { max: 2', '    retries: &r { max: 2'));
    expect(anchor.lines).toEqual([
      'demo.flow.yaml:8:14: error: anchors (&name) are not allowed in flow files',
    ]);
    const media = check(
      good.replace(
        '    say: How old are you?',
        '    say: How old are you?\n    media: { image: ./missing.png }',
      ),
    );
    expect(media.lines).toEqual(['demo.flow.yaml:7:21: error: media file "./missing.png" does not exist']);
  });

  it('reports catalog entries Fluent cannot read, instead of losing them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-ftl-'));
    mkdirSync(join(dir, 'locales'));
    writeFileSync(join(dir, 'locales', 'en.ftl'), '# greetings\nhello = Hi { $name\nbye Bye\nok = Fine\n');
    writeFileSync(
      join(dir, 'demo.flow.yaml'),
      'flow: demo\nstart: bye\ni18n: { default_locale: en }\nsteps:\n  bye: { type: end, say: ok }\n',
    );
    const { problems } = await loadFlows(dir);
    expect(problems.map((p) => `${p.line}:${p.col} ${p.message}`)).toEqual([
      '2:1 Fluent cannot read this entry, so it is left out of the catalog',
      '3:1 Fluent cannot read this entry, so it is left out of the catalog',
    ]);
    expect(problems[0]!.file.endsWith(join('locales', 'en.ftl'))).toBe(true);
  });

  it('refuses a flow whose id differs from its file name', () => {
    expect(check(good, { file: 'flows/other.flow.yaml' }).lines).toEqual([
      'flows/other.flow.yaml:1:7: error: flow id "demo" differs from the file name',
    ]);
  });

  it('the CLI prints the problems and exits 1 on errors, 0 on the examples', () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-check-'));
    mkdirSync(join(dir, 'locales'));
    writeFileSync(join(dir, 'demo.flow.yaml'), good.replace('    next: bye', '    next: by'));
    writeFileSync(join(dir, 'draft.yaml'), good);
    const bad = spawnSync(process.execPath, ['bin/botflow.js', 'check', dir], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(
      /demo\.flow\.yaml:10:11: error: unknown step "by"\n {4}hint: did you mean "bye"\?/,
    );
    const ok = spawnSync(process.execPath, ['bin/botflow.js', 'check', 'flows'], { encoding: 'utf8' });
    expect(ok.stdout).toContain('0 error(s)');
    expect(ok.status).toBe(0);
  });
});
