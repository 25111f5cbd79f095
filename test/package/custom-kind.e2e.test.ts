/**
 * A kind of step of a project's own, as an installed project makes it: the packed tarball in a new folder,
 * `botflow init --example rate_us` (a TypeScript registry whose `flows/code/rating.ts` calls
 * `defineStepKind` from `botflow-engine`), then `botflow check`, `botflow test` (its transcripts in English
 * and Russian), `botflow check` on a misspelt field of the rating step (file:line:col, did-you-mean) and
 * `botflow schema` with the kind in it. One Node (the system's): what is tried is the package, not Node.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installTarball, nodeEnvironment, packTarball, repo, run } from './packing.ts';

const work = mkdtempSync(join(tmpdir(), 'botflow-kind-packed-'));
const folder = join(work, 'user');
const app = join(folder, 'app');
const botflow = join(folder, 'node_modules', '.bin', 'botflow');
let env: NodeJS.ProcessEnv;

/** Runs botflow in the project; a failing exit is an answer here, not a throw. */
async function botflowIn(args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(botflow, args, { cwd: app, env, timeout: 120_000 });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

beforeAll(async () => {
  env = await nodeEnvironment(work, 'system');
  const { tarball } = await packTarball(work);
  await installTarball(folder, tarball, env);
  await run(botflow, ['init', 'app', '--example', 'rate_us'], { cwd: folder, env });
}, 900_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('a project kind of step from the packed package', () => {
  it('the example imports defineStepKind from botflow-engine, and the registry lists the kind', () => {
    expect(readFileSync(join(app, 'flows', 'code', 'rating.ts'), 'utf8')).toContain(
      "import { defineStepKind } from 'botflow-engine';",
    );
    expect(readFileSync(join(app, 'flows', 'registry.ts'), 'utf8')).toContain('kinds: [...rating.kinds]');
  });

  it('passes botflow check and botflow test', async () => {
    const check = await botflowIn(['check']);
    expect(check.out).toContain('0 error(s), 0 warning(s)');
    expect(check.code).toBe(0);
    const test = await botflowIn(['test']);
    expect(test.out).toMatch(/5 passed, 0 failed/);
  }, 240_000);

  it('botflow check points at a misspelt field of the rating step, with did-you-mean', async () => {
    const file = join(app, 'flows', 'rate_us.flow.yaml');
    const good = readFileSync(file, 'utf8');
    const line = good.split('\n').findIndex((l) => l.trim() === 'save: stars') + 1;
    expect(line).toBeGreaterThan(0);
    writeFileSync(file, good.replace('    save: stars', '    sav: stars'));
    try {
      const check = await botflowIn(['check']);
      expect(check.code).toBe(1);
      expect(check.out).toContain(`rate_us.flow.yaml:${line}:5: error: steps.rate: unknown key "sav"`);
      expect(check.out).toContain('did you mean "save"?');
    } finally {
      writeFileSync(file, good);
    }
  }, 120_000);

  it("botflow schema writes the JSON Schema with the project's kind", async () => {
    const schema = await botflowIn(['schema']);
    expect(schema.code).toBe(0);
    expect(schema.out).toContain('"const": "rating"');
    expect(schema.out).toContain('The variable that receives the rating (a whole number)');
  }, 120_000);

  it("type-checks against every entry's declarations without skipLibCheck, strict (a user's tsconfig)", async () => {
    const entries = [
      '',
      '/flows',
      '/engine',
      '/client',
      '/intake',
      '/sandbox',
      '/testing',
      '/testing/vitest',
    ];
    writeFileSync(
      join(app, 'entries.ts'),
      entries.map((e, i) => `export * as e${i} from 'botflow-engine${e}';\n`).join(''),
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noUncheckedIndexedAccess: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          noEmit: true,
          skipLibCheck: false,
          allowImportingTsExtensions: true,
          types: ['node'],
          typeRoots: [join(repo, 'node_modules', '@types')],
        },
        include: ['entries.ts', 'flows/**/*.ts'],
      }),
    );
    // Before: graph-builder.d.ts's opening hours `{ [day: string]: string | string[]; tz?: string }` (TS2411).
    const tsc = await run(
      process.execPath,
      [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'],
      {
        cwd: app,
        env,
        timeout: 120_000,
      },
    ).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(tsc).toBe('');
  }, 180_000);
});
