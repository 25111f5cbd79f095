/**
 * `botflow init [dir]`: a new bot project from `templates/project/` (package.json, tsconfig, a small
 * wizard with its transcript, a registry, a config example, .gitignore, a README), ready for
 * `npm install && npm start` and `npm test`. It never overwrites a file: it lists the ones in the way.
 * `--example <name>` writes one of the repository's example flows instead of the wizard: its flow files,
 * transcripts, locales and registry code, copied from `flows/` (in a checkout) or `templates/examples/`
 * (the package: scripts/build.mjs copies flows/ there), so the examples have one source.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BotflowError } from '../errors/index.ts';
import { flowJsonSchema } from '../flows/schema.ts';
import type { Command } from './command.ts';

const TEMPLATE = fileURLToPath(new URL('../../templates/project/', import.meta.url));
/** The example flows: the repository's flows/ in a checkout (src/ beside it), the build's copy in the package. */
const EXAMPLES_DIR = existsSync(fileURLToPath(new URL('../../src/', import.meta.url)))
  ? fileURLToPath(new URL('../../flows/', import.meta.url))
  : fileURLToPath(new URL('../../templates/examples/', import.meta.url));

/** An example: its flows (with the ones its transcripts reach) and its registry parts (flows/code/<part>.ts). */
interface Example {
  summary: string;
  flows: string[];
  /** Registry parts and the registry sections each fills. */
  code: Record<string, Array<'validators' | 'guards' | 'effects' | 'tasks' | 'kinds'>>;
}

/** The examples `--example` knows, each self-contained: its flows, transcripts, locales and code. */
export const EXAMPLES: Record<string, Example> = {
  booking: {
    summary: 'table booking: tasks calling your systems, buttons from their result, i18n (with settings)',
    flows: ['booking', 'settings'],
    code: { booking: ['tasks'] },
  },
  signup: {
    summary: 'a sign-up wizard: validation, retries, a summary, /help calling another flow',
    flows: ['signup', 'help'],
    code: { signup: ['validators', 'effects'] },
  },
  support: {
    summary: 'a support request forwarded to a chat (SUPPORT_CHAT_ID) by an effect',
    flows: ['support'],
    code: { support: ['effects'] },
  },
  rate_us: {
    summary:
      'a kind of step of your own (defineStepKind): a rating from 1 to 5, typed or pressed, in two languages',
    flows: ['rate_us'],
    code: { rating: ['kinds'] },
  },
  settings: { summary: 'a settings menu edited in place, in two languages', flows: ['settings'], code: {} },
  help: { summary: 'a one-step flow other flows call', flows: ['help'], code: {} },
};
/** The wizard's files, left out when examples are asked for. */
const STARTER = new Set(['flows/feedback.flow.yaml', 'flows/tests/feedback.test.yaml', 'flows/registry.ts']);
const PACKAGE = fileURLToPath(new URL('../../package.json', import.meta.url));

/** npm strips files named `.gitignore` from packages, so the template keeps it under this name. */
const RENAMED: Record<string, string> = { gitignore: '.gitignore' };
/** Files whose `{{name}}` and `{{version}}` are the project's (flow files use `{{…}}` for variables). */
const FILLED = new Set(['package.json', 'README.md']);

const HELP = `usage: botflow init [dir] [--example <name>]

Creates a bot project in dir (default: the current folder; created if missing): package.json, tsconfig.json,
flows/feedback.flow.yaml with its transcript flows/tests/feedback.test.yaml, flows/registry.ts,
botflow.config.example.yaml, .gitignore and a README. Existing files are never overwritten.

  --example <name>   instead of the feedback wizard, one of botflow's example flows with its transcripts,
                     locales and registry code (repeat it, or name several: --example booking,signup):
${Object.entries(EXAMPLES)
  .map(([name, e]) => `                       ${name.padEnd(9)} ${e.summary}`)
  .join('\n')}

Then:  cd dir && npm install && npm start   (the sandbox, your flows and the playground)
       npm test                              (botflow check and botflow test)`;

/** What `initProject` wrote. */
export interface InitResult {
  dir: string;
  files: string[];
}

/** Thrown when the project cannot be created; the message says what to do. */
export class InitError extends BotflowError {
  override name = 'InitError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_INIT_REFUSED', message, options);
  }
}

/** What `initProject` can be asked for besides the folder. */
export interface InitOptions {
  /** Example names (`EXAMPLES`): their flows instead of the feedback wizard. */
  examples?: string[];
}

/** Creates the project in `dir`. Throws `InitError` when files are in the way or an example is unknown. */
export function initProject(dir: string, options: InitOptions = {}): InitResult {
  const target = resolve(dir);
  if (existsSync(target) && !statSync(target).isDirectory())
    throw new InitError(`${dir} is a file: give a folder for the new project`);
  const examples = options.examples ?? [];
  const unknown = examples.filter((name) => !EXAMPLES[name]);
  if (unknown.length)
    throw new InitError(
      `no example named ${unknown.join(', ')}; the examples are ${Object.keys(EXAMPLES).join(', ')}`,
    );
  let files = templateFiles(TEMPLATE).map((path) => ({ from: path, to: targetName(path) }));
  const written: Array<{ to: string; text: string }> = [];
  if (examples.length) {
    files = files.filter((f) => !STARTER.has(f.to));
    written.push(...exampleFiles(examples));
  }
  const taken = [...files, ...written].filter((f) => existsSync(join(target, f.to))).map((f) => f.to);
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
  for (const file of written) {
    const to = join(target, file.to);
    mkdirSync(join(to, '..'), { recursive: true });
    writeFileSync(to, file.text);
  }
  writeFileSync(join(target, 'flows', 'flow.schema.json'), `${JSON.stringify(flowJsonSchema(), null, 2)}\n`);
  const all = [...files.map((f) => f.to), ...written.map((f) => f.to), 'flows/flow.schema.json'];
  return { dir: target, files: all.sort() };
}

/** The files of `examples`: flows, transcripts, locales (when a flow is translated), registry parts and a registry. */
function exampleFiles(examples: string[]): Array<{ to: string; text: string }> {
  const flows = [...new Set(examples.flatMap((name) => EXAMPLES[name]!.flows))];
  const code: Record<string, string[]> = {};
  for (const name of examples) Object.assign(code, EXAMPLES[name]!.code);
  const read = (path: string) => readFileSync(join(EXAMPLES_DIR, path), 'utf8');
  const out: Array<{ to: string; text: string }> = [];
  for (const flow of flows) {
    out.push({ to: `flows/${flow}.flow.yaml`, text: read(`${flow}.flow.yaml`) });
    out.push({ to: `flows/tests/${flow}.test.yaml`, text: read(`tests/${flow}.test.yaml`) });
  }
  if (flows.some((flow) => /^i18n:/m.test(read(`${flow}.flow.yaml`)))) {
    for (const name of readdirSync(join(EXAMPLES_DIR, 'locales'))
      .filter((n) => n.endsWith('.ftl'))
      .sort())
      out.push({ to: `flows/locales/${name}`, text: read(`locales/${name}`) });
  }
  for (const part of Object.keys(code).sort()) {
    // The repository's parts import the sources; a project imports the package.
    const text = read(`code/${part}.ts`).replace(
      /from '\.\.\/\.\.\/src\/[\w/.-]+'/g,
      "from 'botflow-engine'",
    );
    out.push({ to: `flows/code/${part}.ts`, text });
  }
  out.push({ to: 'flows/registry.ts', text: registrySource(code) });
  return out;
}

/** A registry made of the examples' parts, section by section. */
function registrySource(code: Record<string, string[]>): string {
  const parts = Object.keys(code).sort();
  const section = (name: string) => {
    const spreads = parts.filter((p) => code[p]!.includes(name)).map((p) => `...${p}.${name}`);
    return `  ${name}: {${spreads.length ? ` ${spreads.join(', ')} ` : ''}},`;
  };
  // The project's own kinds of step are a list, and only there when an example has some.
  const kinds = parts.filter((p) => code[p]!.includes('kinds')).map((p) => `...${p}.kinds`);
  return [
    '/**',
    ' * The code the flows name: validators, guards, effects and tasks. botflow loads this file by its name;',
    " * each example's code is a part in flows/code/. Add your own beside them.",
    ' */',
    "import { defineRegistry } from 'botflow-engine';",
    ...parts.map((p) => `import ${p} from './code/${p}.ts';`),
    '',
    'export default defineRegistry({',
    ...['validators', 'guards', 'effects', 'tasks'].map(section),
    ...(kinds.length ? [`  kinds: [${kinds.join(', ')}],`] : []),
    '});',
    '',
  ].join('\n');
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
    const examples: string[] = [];
    const rest: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      if (arg === '--example' && args[i + 1] && !args[i + 1]!.startsWith('-'))
        examples.push(...args[++i]!.split(',').filter(Boolean));
      else if (arg.startsWith('--example=')) examples.push(...arg.slice(10).split(',').filter(Boolean));
      else rest.push(arg);
    }
    const unknown = rest.find((a) => a.startsWith('-'));
    if (unknown || rest.length > 1) {
      const what =
        unknown === '--example'
          ? '--example needs a name'
          : unknown
            ? `unknown option ${unknown}`
            : 'give one folder';
      console.error(`botflow init: ${what}\n\n${HELP}`);
      return 2;
    }
    const dir = rest[0] ?? '.';
    let result: InitResult;
    try {
      result = initProject(dir, { examples });
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
