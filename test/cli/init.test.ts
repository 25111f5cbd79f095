/** `botflow init`: the project it writes, and what it refuses. (The packed-package e2e test runs its check and test.) */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InitError, initProject } from '../../src/cli/init-command.ts';
import { loadFlows } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { loadTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';

const dirs: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-init-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('botflow init', () => {
  it('writes a project named after its folder, with the package version', () => {
    const dir = join(temp(), 'My Bot!');
    const result = initProject(dir);
    expect(result.files).toEqual([
      '.gitignore',
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

  it('writes flows that compile and transcripts that pass', async () => {
    const dir = temp();
    initProject(dir);
    // The project's registry.ts imports botflow-engine, which only an installed package resolves
    // (the packed-package e2e test loads it); here an equivalent registry stands in.
    const registry = defineRegistry({
      validators: { not_a_number: (v) => !/^\s*\d+\s*$/.test(String(v)) || 'a number is not a name' },
    });
    const { flows, problems } = await loadFlows(join(dir, 'flows'), { registry });
    expect(problems).toEqual([]);
    const { transcripts, problems: parse } = loadTranscripts([join(dir, 'flows/tests/feedback.test.yaml')]);
    expect(parse).toEqual([]);
    expect(transcripts.length).toBe(2);
    for (const transcript of transcripts) {
      const result = await runTranscript(transcript, { flows });
      expect(result.failure?.report ?? 'passed').toBe('passed');
    }
  }, 60_000);

  it('never overwrites a file, and says which ones are in the way', () => {
    const dir = temp();
    writeFileSync(join(dir, 'package.json'), '{}');
    expect(() => initProject(dir)).toThrow(InitError);
    expect(() => initProject(dir)).toThrow(/already has package.json: botflow init does not overwrite/);
    expect(existsSync(join(dir, 'flows'))).toBe(false);
  });
});
