/**
 * What the tests of the installed package share: packing this checkout with `npm pack`, the environment of
 * a Node version, installing the tarball in a new folder, and waiting for a child's line.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const repo = fileURLToPath(new URL('../../', import.meta.url));

/** Packs this checkout into `work`; returns the tarball and the paths it holds. */
export async function packTarball(work: string): Promise<{ tarball: string; paths: string[] }> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: repo,
    timeout: 300_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: join(work, packed!.filename), paths: packed!.files.map((f) => f.path) };
}

/** The environment that puts `version`'s node first on PATH and builds native addons against its headers. */
export async function nodeEnvironment(work: string, version: string): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' };
  for (const key of Object.keys(env))
    if (key.startsWith('BOTFLOW_') || key.startsWith('VITEST')) delete env[key];
  if (version === 'system') {
    env.PATH = `${dirname(process.execPath)}${delimiter}${env.PATH}`;
    return env;
  }
  const dir = join(work, `node-${version}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"private":true}');
  const pkg = `node-${process.platform}-${process.arch}`;
  await run('npm', ['install', `${pkg}@${version}`, '--no-audit', '--no-fund'], {
    cwd: dir,
    timeout: 300_000,
  });
  const home = join(dir, 'node_modules', pkg);
  env.PATH = `${join(home, 'bin')}${delimiter}${env.PATH}`;
  env.npm_config_nodedir = home;
  return env;
}

/** Installs `tarball` into a new folder `folder` (with its own package.json). */
export async function installTarball(
  folder: string,
  tarball: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), '{"private":true}');
  const install = await run('npm', ['install', tarball, '--no-audit', '--no-fund'], {
    cwd: folder,
    env,
    timeout: 600_000,
  });
  return `${install.stdout}${install.stderr}`;
}

/** Resolves with the child's first stdout line that `match` accepts (rejects when it exits first). */
export function firstLine(
  child: ChildProcess,
  match: (line: string) => boolean,
  what: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (match(line)) resolve(line);
    });
    child.once('exit', (code) =>
      reject(new Error(`${what} exited with ${code} before it was ready:\n${stderr}`)),
    );
  });
}
