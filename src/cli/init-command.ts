/**
 * `botflow init [dir]`: a new bot project from `templates/project/` (package.json, tsconfig, a small
 * wizard with its transcript, a registry, a config example, .gitignore, a README), ready for
 * `npm install && npm start` and `npm test`. It never overwrites a file: it lists the ones in the way.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flowJsonSchema } from '../flows/schema.ts';
import type { Command } from './command.ts';

const TEMPLATE = fileURLToPath(new URL('../../templates/project/', import.meta.url));
const PACKAGE = fileURLToPath(new URL('../../package.json', import.meta.url));

/** npm strips files named `.gitignore` from packages, so the template keeps it under this name. */
const RENAMED: Record<string, string> = { gitignore: '.gitignore' };
/** Files whose `{{name}}` and `{{version}}` are the project's (flow files use `{{…}}` for variables). */
const FILLED = new Set(['package.json', 'README.md']);

const HELP = `usage: botflow init [dir]

Creates a bot project in dir (default: the current folder; created if missing): package.json, tsconfig.json,
flows/feedback.flow.yaml with its transcript flows/tests/feedback.test.yaml, flows/registry.ts,
botflow.config.example.yaml, .gitignore and a README. Existing files are never overwritten.

Then:  cd dir && npm install && npm start   (the sandbox, your flows and the playground)
       npm test                              (botflow check and botflow test)`;

/** What `initProject` wrote. */
export interface InitResult {
  dir: string;
  files: string[];
}

/** Thrown when the project cannot be created; the message says what to do. */
export class InitError extends Error {
  override name = 'InitError';
}

/** Creates the project in `dir`. Throws `InitError` when files are in the way. */
export function initProject(dir: string): InitResult {
  const target = resolve(dir);
  if (existsSync(target) && !statSync(target).isDirectory())
    throw new InitError(`${dir} is a file: give a folder for the new project`);
  const files = templateFiles(TEMPLATE).map((path) => ({ from: path, to: targetName(path) }));
  const taken = files.filter((f) => existsSync(join(target, f.to))).map((f) => f.to);
  if (existsSync(join(target, 'flows', 'flow.schema.json'))) taken.push('flows/flow.schema.json');
  if (taken.length > 0) {
    throw new InitError(
      `${dir} already has ${taken.join(', ')}: botflow init does not overwrite files; choose an empty folder (botflow init my-bot)`,
    );
  }
  const fill = { name: packageName(target), version: ownVersion() };
  mkdirSync(target, { recursive: true });
  for (const file of files) {
    const to = join(target, file.to);
    mkdirSync(join(to, '..'), { recursive: true });
    if (FILLED.has(file.to)) {
      const text = readFileSync(join(TEMPLATE, file.from), 'utf8');
      writeFileSync(to, text.replaceAll('{{name}}', fill.name).replaceAll('{{version}}', fill.version));
    } else cpSync(join(TEMPLATE, file.from), to);
  }
  writeFileSync(join(target, 'flows', 'flow.schema.json'), `${JSON.stringify(flowJsonSchema(), null, 2)}\n`);
  return { dir: target, files: [...files.map((f) => f.to), 'flows/flow.schema.json'].sort() };
}

function templateFiles(root: string, dir = root): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? templateFiles(root, path) : [relative(root, path)];
  });
}

function targetName(path: string): string {
  const name = basename(path);
  return RENAMED[name] ? join(path, '..', RENAMED[name]).replace(/^\.\//, '') : path;
}

/** An npm package name made of the folder's name: lower case, letters, digits, `-`, `.` and `_`. */
function packageName(dir: string): string {
  const name = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|-+$/g, '');
  return name || 'my-bot';
}

function ownVersion(): string {
  return (JSON.parse(readFileSync(PACKAGE, 'utf8')) as { version: string }).version;
}

/** The `init` subcommand. */
export const command: Command = {
  summary: 'create a new bot project: flows, a transcript test, a registry, config',
  async run(args) {
    if (args.includes('--help') || args.includes('-h')) {
      console.log(HELP);
      return 0;
    }
    const unknown = args.find((a) => a.startsWith('-'));
    if (unknown || args.length > 1) {
      console.error(`botflow init: ${unknown ? `unknown option ${unknown}` : 'give one folder'}\n\n${HELP}`);
      return 2;
    }
    const dir = args[0] ?? '.';
    let result: InitResult;
    try {
      result = initProject(dir);
    } catch (error) {
      if (!(error instanceof InitError)) throw error;
      console.error(`botflow init: ${error.message}`);
      return 2;
    }
    const shown = relative(process.cwd(), result.dir) || '.';
    console.log(
      [
        `Created a bot project in ${shown}:`,
        ...result.files.map((f) => `  ${f}`),
        '',
        'Next:',
        ...(shown === '.' ? [] : [`  cd ${shown}`]),
        '  npm install && npm start     # the sandbox, your flows and the playground',
        '  npm test                     # botflow check and botflow test',
      ].join('\n'),
    );
    return 0;
  },
};
