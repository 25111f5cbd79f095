/**
 * The package as a user gets it: `npm pack`, the tarball installed into an empty folder with no access
 * to this repository's sources, then `botflow init`, and in the new project `botflow check`,
 * `botflow test` and a short `botflow run` against a `botflow sandbox` that answers a `bot_started`.
 *
 * Runs on this machine's Node and on Node 22 and 24, taken from the npm registry's `node-<os>-<arch>`
 * packages (official builds with their headers, so better-sqlite3 compiles for each). Choose the Nodes
 * with BOTFLOW_SMOKE_NODES (default `system,22,24`; `system` is the Node running the tests).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import {
  nodeEnvironment as environmentIn,
  firstLine,
  installTarball,
  packTarball,
  repo,
  run,
} from './packing.ts';

const work = mkdtempSync(join(tmpdir(), 'botflow-packed-'));
const nodes = (process.env.BOTFLOW_SMOKE_NODES ?? 'system,22,24').split(',').filter(Boolean);
const children: ChildProcess[] = [];
let tarball = '';
const nodeEnvironment = (version: string) => environmentIn(work, version);

beforeAll(async () => {
  const packed = await packTarball(work);
  tarball = packed.tarball;
  const paths = packed.paths;
  // What users need, and nothing of the repository's own.
  expect(paths).toContain('dist/index.js');
  expect(paths).toContain('dist/index.d.ts');
  expect(paths).toContain('templates/project/flows/feedback.flow.yaml');
  // The examples `botflow init --example` copies, from the build's copy of flows/.
  expect(paths).toContain('templates/examples/booking.flow.yaml');
  // The playground's editor: its bundle, built by the pack's prepack, without the TypeScript it is built from.
  expect(paths).toContain('dist/sandbox/web/assets/editor.js');
  expect(paths.filter((p) => p.startsWith('dist/sandbox/web/editor'))).toEqual([]);
  expect(paths).toContain('templates/examples/code/booking.ts');
  expect(paths.filter((p) => /^(src|test|flows)\//.test(p))).toEqual([]);
}, 300_000);

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

describe.each(nodes)('the packed package on Node %s', (version) => {
  const folder = join(work, `user-${version}`);
  const app = join(folder, 'app');
  const botflow = join(folder, 'node_modules', '.bin', 'botflow');
  let env: NodeJS.ProcessEnv;

  it('installs into an empty folder', async () => {
    env = await nodeEnvironment(version);
    const { stdout: nodeVersion } = await run('node', ['--version'], { env });
    if (version !== 'system') expect(nodeVersion.trim().startsWith(`v${version}.`)).toBe(true);
    const output = await installTarball(folder, tarball, env);
    // The repository's own scripts stay behind: a `prepare` naming scripts/build.mjs (not in the
    // tarball) made npm list botflow-engine's "install scripts not yet covered by allowScripts".
    const installed = JSON.parse(
      readFileSync(join(folder, 'node_modules', 'botflow-engine', 'package.json'), 'utf8'),
    ) as { scripts?: Record<string, string> };
    const lifecycle = ['preinstall', 'install', 'postinstall', 'prepare', 'prepack', 'postpack'];
    expect(Object.keys(installed.scripts ?? {}).filter((name) => lifecycle.includes(name))).toEqual([]);
    expect(output).not.toContain('botflow-engine@');
    // Nothing installed for production declares a newer Node than the one installing it (better-sqlite3
    // 13 is optional: skipped on Node 20 without a word).
    expect(output).not.toContain('EBADENGINE');
  }, 900_000);

  it('botflow init makes a project that passes botflow check and botflow test', async () => {
    const init = await run(botflow, ['init', 'app'], { cwd: folder, env });
    expect(init.stdout).toContain('flows/feedback.flow.yaml');
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as {
      name: string;
      dependencies: Record<string, string>;
    };
    expect(pkg.name).toBe('app');
    expect(Object.keys(pkg.dependencies)).toEqual(['botflow-engine', 'zod']);
    const check = await run(botflow, ['check'], { cwd: app, env });
    expect(check.stdout).toContain('0 error(s)');
    const test = await run(botflow, ['test'], { cwd: app, env });
    expect(test.stdout).toContain('5 passed, 0 failed');
  }, 120_000);

  it('botflow init --example booking makes a project that passes botflow check and botflow test', async () => {
    await run(botflow, ['init', 'booking', '--example', 'booking'], { cwd: folder, env });
    const dir = join(folder, 'booking');
    const check = await run(botflow, ['check'], { cwd: dir, env });
    expect(check.stdout).toContain('0 error(s), 0 warning(s)');
    const test = await run(botflow, ['test'], { cwd: dir, env });
    expect(test.stdout).toMatch(/\d+ passed, 0 failed/);
  }, 120_000);

  it('botflow run answers a bot_started from botflow sandbox', async () => {
    const token = `smoke-token-${version}`;
    const sandbox = spawn(botflow, ['sandbox', '--token', token], { cwd: app, env });
    children.push(sandbox);
    const { baseUrl } = JSON.parse(await firstLine(sandbox, (l) => l.startsWith('{'), 'botflow sandbox')) as {
      baseUrl: string;
    };
    const bot = spawn(botflow, ['run'], {
      cwd: app,
      env: {
        ...env,
        BOTFLOW_TOKEN: token,
        BOTFLOW_BASE_URL: baseUrl,
        BOTFLOW_MODE: 'polling',
        BOTFLOW_DATABASE_PATH: join(app, 'bot.db'),
      },
    });
    children.push(bot);
    await firstLine(bot, (l) => l.includes('long polling started'), 'botflow run');
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await response.json()) as Record<string, unknown>;
    };
    const person = await post('/_sandbox/users', { first_name: 'Ann' });
    await post('/_sandbox/start', { user_id: person.user_id });
    const text = await eventually(
      'the bot to answer bot_started',
      async () => {
        const view = (await (await fetch(`${baseUrl}/_sandbox/view?user_id=${person.user_id}`)).json()) as {
          messages: Array<{ from: string; text: string }>;
        };
        return view.messages.find((m) => m.from === 'bot')?.text;
      },
      30_000,
    );
    expect(text).toContain('What is your name?');

    const exited = new Promise<number | null>((resolve) => bot.once('exit', (code) => resolve(code)));
    bot.kill('SIGTERM');
    expect(await exited).toBe(0);
    sandbox.kill('SIGTERM');
  }, 120_000);
});

describe('npm create botflow', () => {
  it('create-botflow makes the same project through botflow-engine', async () => {
    const env = await nodeEnvironment('system');
    const { stdout } = await run(
      'npm',
      ['pack', '--json', '--pack-destination', work, join(repo, 'packages', 'create-botflow')],
      { cwd: work, env, timeout: 120_000 },
    );
    const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
    const folder = join(work, 'create');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'package.json'), '{"private":true}');
    // The engine from this build's tarball satisfies create-botflow's dependency, as the registry's would.
    await run('npm', ['install', tarball, join(work, packed!.filename), '--no-audit', '--no-fund'], {
      cwd: folder,
      env,
      timeout: 600_000,
    });
    const created = await run(join(folder, 'node_modules', '.bin', 'create-botflow'), ['my-bot'], {
      cwd: folder,
      env,
    });
    expect(created.stdout).toContain('flows/tests/feedback.test.yaml');
    const pkg = JSON.parse(readFileSync(join(folder, 'my-bot', 'package.json'), 'utf8')) as { name: string };
    expect(pkg.name).toBe('my-bot');
  }, 900_000);

  it('asks for the engine version it is released with', () => {
    const engine = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
    const create = JSON.parse(readFileSync(join(repo, 'packages/create-botflow/package.json'), 'utf8')) as {
      version: string;
      dependencies: Record<string, string>;
    };
    expect(create.version).toBe(engine.version);
    expect(create.dependencies['botflow-engine']).toBe(`^${engine.version}`);
  });
});
