/** The errors a designer meets (issue 17): every error in one run, clear messages, help and flags. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main, unknownOption } from '../../src/cli.ts';
import { compileSources, loadFlows } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { loadConfig } from '../../src/runtime/config.ts';
import { runShutdown } from '../../src/runtime/shutdown.ts';
import { parseTranscripts } from '../../src/testing/load.ts';

/** Runs the CLI in this process and collects what it prints. */
async function cli(...argv: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const keep = (...a: unknown[]) => {
    lines.push(a.map(String).join(' '));
  };
  vi.spyOn(console, 'log').mockImplementation(keep);
  vi.spyOn(console, 'error').mockImplementation(keep);
  const write = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(write as never);
  vi.spyOn(process.stderr, 'write').mockImplementation(write as never);
  try {
    return { code: await main(argv), out: lines.join('\n') };
  } finally {
    vi.restoreAllMocks();
  }
}
afterEach(() => {
  vi.restoreAllMocks();
});

describe('errors a designer meets', () => {
  it('check reports schema errors and reference errors of the same file in one run', () => {
    const r = compileSources(
      [
        {
          file: 'demo.flow.yaml',
          source: `flow: demo
start: a
steps:
  a: { type: message, say: Hi, next: b, colour: red }
  b: { type: message, say: There, next: nowhere }
  c: { type: input, say: Age?, input: number }
`,
        },
      ],
      defineRegistry({}),
      new Map(),
    );
    const messages = r.problems.map((p) => `${p.line}: ${p.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^4: .*unknown key "colour"/),
        '5: unknown step "nowhere"',
        expect.stringMatching(/^6: .*retries/),
      ]),
    );
    expect(r.flows).toEqual([]);
  });

  it('a transcript file reports all its errors, not only the first', () => {
    const { problems } = parseTranscripts(
      `flow: signup
name: two mistakes
turns:
  - sya: hi
  - say: there
    bot: { sned: x }
`,
      't.test.yaml',
    );
    expect(problems.map((p) => `${p.line}: ${p.message}`)).toEqual([
      '4: unknown key "sya"',
      '6: unknown key "sned"',
    ]);
  });

  it('a misspelt option gets "did you mean" before the command runs (exit 2)', async () => {
    const flag = await cli('check', '--registy', 'x.ts');
    expect(flag.code).toBe(2);
    expect(flag.out).toContain('unknown option --registy; did you mean --registry?');
    expect(
      unknownOption(['--no-watch', '--flows=x', '--', '--anything'], ['watch', 'flows']),
    ).toBeUndefined();
    expect(unknownOption(['--covrage'], ['coverage'])).toBe(
      'unknown option --covrage; did you mean --coverage?',
    );
  });
  it('--help of every command prints its usage and exits 0', async () => {
    for (const name of [
      'check',
      'graph',
      'migrate',
      'replay',
      'run',
      'sandbox',
      'schema',
      'test',
      'webhook',
    ]) {
      const r = await cli(name, '--help');
      expect({ name, code: r.code }).toEqual({ name, code: 0 });
      expect(r.out.toLowerCase()).toContain('usage');
      expect(r.out).not.toContain('"$schema"');
    }
  });

  it('run --no-watch turns watching off; run with a misspelt option says what it meant', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-run-'));
    expect(loadConfig({ argv: ['--no-watch'], env: {}, cwd: dir }).flows.watch).toBe(false);
    const r = await cli('run', '--no-wacth');
    expect(r).toMatchObject({ code: 2 });
    expect(r.out).toContain('unknown option --no-wacth; did you mean --no-watch?');
  });

  it('transcripts and configuration files in the flows folder are not called misnamed flows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-names-'));
    for (const n of ['x.test.yaml', 'botflow.config.example.yaml', 'signup.yaml'])
      writeFileSync(join(dir, n), 'a: 1\n');
    const { problems } = await loadFlows(dir);
    expect(problems.map((p) => p.message)).toEqual([
      'signup.yaml is not read: only *.flow.yaml files are flows',
    ]);
  });

  it('the i18n hints name the flows folder actually checked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-i18n-'));
    mkdirSync(join(dir, 'locales'));
    writeFileSync(join(dir, 'locales', 'en.ftl'), 'hi = Hi\n');
    writeFileSync(
      join(dir, 'demo.flow.yaml'),
      'flow: demo\nstart: a\ni18n: { default_locale: en, locales: [en, de] }\nsteps:\n  a: { type: end, say: hi }\n',
    );
    const { problems } = await loadFlows(dir);
    const hint = problems.find((p) => p.message === 'no catalog for locale "de"')?.hint;
    expect(hint).toMatch(/botflow-i18n-\w+\/locales\/de\.ftl$/);
    expect(hint).not.toBe('add flows/locales/de.ftl');
  });

  it('a failed start prints no shutdown lines for parts that never started', async () => {
    const logged: string[] = [];
    const logger = {
      info: (_: object, m: string) => logged.push(m),
      warn: (_: object, m: string) => logged.push(m),
      error: (_: object, m: string) => logged.push(m),
    };
    const ran: string[] = [];
    const result = await runShutdown(
      [
        { name: 'stop intake', started: () => false, run: () => ran.push('intake') },
        { name: 'close database', always: true, started: () => true, run: () => ran.push('db') },
      ],
      { deadline: Date.now() + 1000, logger: logger as never },
    );
    expect(ran).toEqual(['db']);
    expect(logged).toEqual(['shutdown: close database']);
    expect(result.clean).toBe(true);
  });
});
