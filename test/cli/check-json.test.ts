/** `botflow check --json`: the problems as one JSON array, for editors and CI, with the same exit code. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FLOW = `flow: hello
start: ask
steps:
  ask:
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

function check(flow: string, ...options: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-check-json-'));
  writeFileSync(join(dir, 'hello.flow.yaml'), flow);
  const r = spawnSync(
    process.execPath,
    ['bin/botflow.js', 'check', dir, '--campaigns', join(dir, 'none'), ...options],
    { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
  );
  return { status: r.status, out: r.stdout, err: r.stderr, file: join(dir, 'hello.flow.yaml') };
}

describe('botflow check --json', () => {
  it('prints every problem with its range, code and fixes, and exits 1 on an error', () => {
    const r = check(FLOW.replace('next: greet', 'next: gret').replace('{{name}}', '{{nmae}}'), '--json');
    expect(r.status).toBe(1);
    const problems = JSON.parse(r.out) as Record<string, unknown>[];
    const file = problems[0]!.file as string;
    expect(file).toMatch(/hello\.flow\.yaml$/);
    expect(problems).toEqual([
      {
        file,
        line: 10,
        col: 11,
        endLine: 10,
        endCol: 15,
        code: 'unknown-step',
        severity: 'error',
        message: 'unknown step "gret"',
        hint: 'did you mean "greet"?',
        fixes: [
          {
            title: 'Change to "greet"',
            edits: [{ file, line: 10, col: 11, endLine: 10, endCol: 15, newText: 'greet' }],
          },
        ],
      },
      {
        file,
        line: 11,
        col: 3,
        endLine: 11,
        endCol: 8,
        code: 'unreachable-step',
        severity: 'warning',
        message: 'step "greet" is unreachable',
        hint: 'link it from another step, or delete it',
        fixes: [],
      },
      {
        file,
        line: 13,
        col: 15,
        endLine: 13,
        endCol: 19,
        code: 'unknown-variable',
        severity: 'warning',
        message: 'unknown variable "nmae" in {{nmae}}',
        hint: 'did you mean "name"?',
        fixes: [
          {
            title: 'Change to "name"',
            edits: [{ file, line: 13, col: 15, endLine: 13, endCol: 19, newText: 'name' }],
          },
        ],
      },
    ]);
  }, 30_000);

  it('prints an empty array for a clean folder (exit 0), and the text lines without --json', () => {
    const clean = check(FLOW, '--json');
    expect([clean.status, JSON.parse(clean.out)]).toEqual([0, []]);
    const text = check(FLOW.replace('next: greet', 'next: gret'));
    expect(text.status).toBe(1);
    expect(text.out).toMatch(
      /hello\.flow\.yaml:10:11: error: unknown step "gret"\n {4}hint: did you mean "greet"\?\n/,
    );
    expect(text.out).toContain('1 flow file(s), 0 compiled: 1 error(s), 1 warning(s)');
  }, 30_000);
});
