/** `botflow init`: the project it writes, and what it refuses. (The packed-package e2e test runs its check and test.) */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLES, InitError, initProject } from '../../src/cli/init-command.ts';
import { loadFlows } from '../../src/flows/load.ts';
import type { Registry } from '../../src/flows/registry.ts';
import { coverageReport, formatCoverage } from '../../src/testing/coverage.ts';
import { CoverageRecorder } from '../../src/testing/coverage-recorder.ts';
import { loadTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-init-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A folder inside this checkout (its tmp/ is ignored by git), so that a project's registry finds zod in
 * the checkout's node_modules; its `from 'botflow-engine'` imports become the sources (only an installed
 * package resolves that name; the packed-package e2e test loads it so).
 */
function local(): string {
  mkdirSync(join(repo, 'tmp'), { recursive: true });
  const dir = mkdtempSync(join(repo, 'tmp', 'init-'));
  dirs.push(dir);
  return dir;
}
function localise(dir: string): void {
  const walk = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(folder, e.name)) : e.name.endsWith('.ts') ? [join(folder, e.name)] : [],
    );
  for (const file of walk(join(dir, 'flows'))) {
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replaceAll("from 'botflow-engine'", `from '${join(repo, 'src/index.ts')}'`));
  }
}

/**
 * What `botflow check` and `botflow test --coverage` say of a project: every problem (warnings too),
 * the transcripts that failed, and the steps and transitions no transcript reached.
 */
async function checkAndTest(dir: string) {
  const { flows, problems, registry } = await loadFlows(join(dir, 'flows'));
  const files = readdirSync(join(dir, 'flows', 'tests')).map((f) => join(dir, 'flows', 'tests', f));
  const { transcripts, problems: parse } = loadTranscripts(files);
  const coverage = new CoverageRecorder();
  const failed: string[] = [];
  for (const transcript of transcripts) {
    const result = await runTranscript(transcript, { flows, coverage });
    if (!result.passed) failed.push(result.failure?.report ?? transcript.name);
  }
  const report = coverageReport(flows, coverage);
  const missed = report.some((c) => c.missedSteps.length || c.missedEdges.length)
    ? formatCoverage(report)
    : '';
  return {
    flows,
    problems: [...problems, ...parse],
    transcripts,
    failed,
    missed,
    registry: registry as Registry,
  };
}

describe('botflow init', () => {
  it('writes a project named after its folder, with the package version', () => {
    const dir = join(temp(), 'My Bot!');
    const result = initProject(dir);
    expect(result.files).toEqual([
      '.gitignore',
      '.vscode/extensions.json',
      '.vscode/settings.json',
      'README.md',
      'botflow.config.example.yaml',
      'flows/feedback.flow.yaml',
      'flows/flow.schema.json',
      'flows/registry.ts',
      'flows/tests/feedback.test.yaml',
      'package.json',
      'tsconfig.json',
    ]);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      type: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const own = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(pkg).toMatchObject({ name: 'my-bot', type: 'module' });
    // The registry's task inputs are zod schemas, and it may read process.env: both are declared, so
    // `npm run typecheck` passes in a new project.
    expect(pkg.dependencies).toEqual({ 'botflow-engine': `^${own.version}`, zod: expect.any(String) });
    expect(Object.keys(pkg.devDependencies).sort()).toEqual(['@types/node', 'typescript']);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('# my-bot');
    // Flow texts keep their {{variables}}: only package.json and the README are filled in.
    expect(readFileSync(join(dir, 'flows/feedback.flow.yaml'), 'utf8')).toContain('{{name}}');
  });

  it('writes flows that pass botflow check with no warning, and transcripts that pass and reach every step and transition', async () => {
    const dir = local();
    initProject(dir);
    localise(dir);
    const { problems, transcripts, failed, missed } = await checkAndTest(dir);
    expect(problems).toEqual([]);
    expect(transcripts.length).toBe(5);
    expect(failed).toEqual([]);
    expect(missed).toBe('');
  }, 60_000);

  it("writes a task that calls the project's systems: typed input, a ticket, a coded TaskError", async () => {
    const dir = local();
    initProject(dir);
    localise(dir);
    const { flows, registry } = await checkAndTest(dir);
    expect(flows.map((f) => f.id)).toEqual(['feedback']);
    const task = registry.tasks?.file_feedback as {
      input: { parse(v: unknown): unknown };
      run(input: unknown, ctx: { signal: AbortSignal }): Promise<{ ticket: string }>;
    };
    const ctx = { signal: new AbortController().signal };
    const input = { name: 'Ann', rating: 'great', comment: 'Lovely place.' };
    const first = await task.run(input, ctx);
    expect(first.ticket).toMatch(/^F-\d{4}$/);
    expect(await task.run(input, ctx)).toEqual(first);
    expect(() => task.input.parse({ ...input, rating: 'superb' })).toThrow();
    const refused = await task.run({ ...input, comment: 'see https://example.com' }, ctx).catch((e) => e);
    // The registry loads through tsx with its own copy of the sources: a TaskError by its name and code.
    expect(refused).toMatchObject({ name: 'TaskError', code: 'has_link' });
  }, 60_000);

  it.each(Object.keys(EXAMPLES))(
    '--example %s copies the example with its transcripts, locales and code: botflow check and test pass',
    async (name) => {
      const dir = local();
      const { files } = initProject(dir, { examples: [name] });
      expect(files).toContain(`flows/${name}.flow.yaml`);
      expect(files).toContain(`flows/tests/${name}.test.yaml`);
      expect(files).not.toContain('flows/feedback.flow.yaml');
      // The copies are the repository's flows, byte for byte: one source, nothing to drift.
      for (const file of files.filter((f) => /^flows\/.*\.(yaml|ftl)$/.test(f)))
        expect(readFileSync(join(dir, file), 'utf8'), file).toBe(readFileSync(join(repo, file), 'utf8'));
      for (const file of files.filter((f) => f.startsWith('flows/code/'))) {
        const text = readFileSync(join(dir, file), 'utf8');
        expect(text).not.toContain('/src/');
        expect(text.replaceAll("from 'botflow-engine'", "from '../../src/flows/registry.ts'")).toBe(
          readFileSync(join(repo, file), 'utf8'),
        );
      }
      localise(dir);
      const { problems, transcripts, failed } = await checkAndTest(dir);
      expect(problems).toEqual([]);
      expect(transcripts.length).toBeGreaterThan(0);
      expect(failed).toEqual([]);
    },
    60_000,
  );

  it('refuses an unknown example and names the known ones', () => {
    expect(() => initProject(temp(), { examples: ['bookings'] })).toThrow(
      'no example named bookings; the examples are booking, signup, support, rate_us, settings, help',
    );
  });

  it('never overwrites a file, and says which ones are in the way', () => {
    const dir = temp();
    writeFileSync(join(dir, 'package.json'), '{}');
    expect(() => initProject(dir)).toThrow(InitError);
    expect(() => initProject(dir)).toThrow(/already has package.json: botflow init does not overwrite/);
    expect(existsSync(join(dir, 'flows'))).toBe(false);
  });
});
