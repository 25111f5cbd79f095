/**
 * Every code sample of the README and docs/ is checked here, so that what a reader copies works:
 * - TypeScript samples all type-check together against the package's entry points, and each runs as a
 *   program (against a sandbox of its own when it needs a platform) and must exit 0. A sample that needs
 *   names from an earlier one says so with `<!-- sample: given <name> -->` before its fence; one that
 *   serves until stopped is driven with `<!-- sample: run <driver> -->`; one run by another test names it
 *   with `<!-- sample: run by <test file> -->`; `<!-- sample: typecheck only: <why> -->` is the exception.
 * - YAML samples are flow files (their header, steps or migrations, against the flow schema) or
 *   transcripts (through the transcript parser); Fluent samples parse without broken entries.
 * - Shell samples name only commands the `botflow` CLI has.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { main as cli } from '../../src/cli.ts';
import { parseCampaignSource } from '../../src/engine/campaigns/file.ts';
import { importCode } from '../../src/flows/import-code.ts';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY, type Registry } from '../../src/flows/registry.ts';
import { FlowFile, Migration, Step } from '../../src/flows/schema.ts';
import { loadCatalog } from '../../src/flows/texts.ts';
import { loadConfig } from '../../src/runtime/config.ts';
import { KEYS } from '../../src/runtime/config-schema.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';
import { eventually } from '../support/eventually.ts';
import { freshDatabase } from '../support/postgres.ts';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
/** tsx's loader by its address: the samples run in folders of their own, outside this checkout. */
const TSX = import.meta.resolve('tsx');

/** The package's entry points, as the samples import them, and where they live in this checkout. */
const ENTRIES: Record<string, string> = {
  'botflow-engine': 'src/index.ts',
  'botflow-engine/flows': 'src/flows/index.ts',
  'botflow-engine/engine': 'src/engine/index.ts',
  'botflow-engine/client': 'src/client/index.ts',
  'botflow-engine/intake': 'src/intake/index.ts',
  'botflow-engine/sandbox': 'src/sandbox/index.ts',
  'botflow-engine/testing': 'src/testing/index.ts',
  'botflow-engine/testing/vitest': 'src/testing/vitest.ts',
};

interface Sample {
  page: string;
  line: number;
  lang: string;
  code: string;
  /** The `<!-- sample: … -->` note before the fence, if any. */
  note?: string;
}

function samples(): Sample[] {
  const pages = [
    'README.md',
    ...readdirSync(join(repo, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const found: Sample[] = [];
  for (const page of pages) {
    const lines = readFileSync(join(repo, page), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const open = /^```(\w*)\s*$/.exec(lines[i]!);
      if (!open) continue;
      const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
      let before = i - 1;
      while (before >= 0 && lines[before]!.trim() === '') before--;
      const note = /^<!-- sample: (.*) -->$/.exec(lines[before] ?? '')?.[1];
      found.push({
        page,
        line: i + 1,
        lang: open[1]!,
        code: lines.slice(i + 1, end).join('\n'),
        ...(note ? { note } : {}),
      });
      i = end;
    }
  }
  return found;
}

const all = samples();
const where = (s: Sample) => `${s.page}:${s.line}`;
const typescript = all.filter((s) => s.lang === 'ts');

// ---- TypeScript ----

/** Code a `given` sample runs after (`run`) or is declared with (`types`). */
const GIVEN: Record<string, { imports: string; types: string; run: string; after: string }> = {
  'engine-parts': {
    imports: [
      "import type { FlowDefinition } from 'botflow-engine/engine';",
      "import { createEngine, openDatabase, startWriterThread } from 'botflow-engine/engine';",
      "import { BotApi, Scheduler } from 'botflow-engine/client';",
      "import { buildWebhook } from 'botflow-engine/intake';",
      "import { startSandbox } from 'botflow-engine/sandbox';",
      "import { loadFlowsOrThrow } from 'botflow-engine/testing';",
    ].join('\n'),
    types:
      'declare const flows: FlowDefinition[];\ndeclare const api: BotApi;\ndeclare const scheduler: Scheduler;\ndeclare const secret: string;',
    run: [
      'const sandbox = await startSandbox();',
      'const api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });',
      'const scheduler = new Scheduler({ api });',
      "const flows = await loadFlowsOrThrow('flows');",
      "const secret = 'sample_secret';",
    ].join('\n'),
    after: 'scheduler.close();\nawait api.close();\nawait sandbox.close();',
  },
  'client-scene': {
    imports: [
      "import { writeFileSync } from 'node:fs';",
      "import { BotApi as SceneApi } from 'botflow-engine';",
      "import { SandboxControl } from 'botflow-engine/sandbox';",
    ].join('\n'),
    types:
      'declare const chatId: number;\ndeclare const callbackId: string;\ndeclare const subscribers: number[];\ndeclare const clip: string;',
    run: [
      // A person with a dialog, a keyboard they pressed, two subscribers and a video file, in the sandbox.
      'const people = new SandboxControl(process.env.BOT_API_URL!);',
      "const ann = await people.createUser({ first_name: 'Ann' });",
      'const { chat_id: chatId } = await people.startBot(ann.user_id);',
      'const scene = new SceneApi({ token: process.env.BOT_TOKEN!, baseUrl: process.env.BOT_API_URL! });',
      "const menu = await scene.sendMessage({ chat_id: chatId, text: 'Save?', attachments: [{ type: 'inline_keyboard', payload: { buttons: [[{ type: 'callback', text: 'Save', payload: 'save' }]] } }] });",
      "const press = await people.pressButton(ann.user_id, menu.message.body.mid, 'save');",
      'const callbackId = String(press.callback_id);',
      "const bob = await people.createUser({ first_name: 'Bob' });",
      'const subscribers = [chatId, (await people.startBot(bob.user_id)).chat_id];',
      "const clip = process.cwd() + '/clip.mp4';",
      'writeFileSync(clip, Buffer.alloc(64 * 1024, 1));',
      'await scene.close();',
    ].join('\n'),
    after: '',
  },
};

function given(s: Sample): (typeof GIVEN)[string] | undefined {
  const name = /\bgiven ([\w-]+)/.exec(s.note ?? '')?.[1];
  if (!name) return undefined;
  const prelude = GIVEN[name];
  if (!prelude) throw new Error(`${where(s)}: unknown sample prelude "${name}"`);
  return prelude;
}

/** The sample as a module of this checkout: the package's entry points become paths to the sources. */
function localise(code: string): string {
  return code.replace(/from '(botflow-engine(?:\/[\w/]+)?)'/g, (_match, entry: string) => {
    const path = ENTRIES[entry];
    if (!path) throw new Error(`a sample imports ${entry}, which the package does not export`);
    return `from '${join(repo, path)}'`;
  });
}

const scratch = join(repo, 'node_modules', '.cache', 'doc-samples', String(process.pid));
// Run files are .mts: under node_modules/ no package.json says "type": "module".
const fileOf = (s: Sample, kind: 'check' | 'run') =>
  join(scratch, `${s.page.replace(/\W+/g, '-')}-${s.line}.${kind}.${kind === 'run' ? 'mts' : 'ts'}`);

beforeAll(() => {
  mkdirSync(scratch, { recursive: true });
  for (const s of typescript) {
    const prelude = given(s);
    const check = [prelude?.imports ?? '', prelude?.types ?? '', s.code, 'export {};'].join('\n');
    writeFileSync(fileOf(s, 'check'), localise(check));
    const program = [prelude?.imports ?? '', prelude?.run ?? '', s.code, prelude?.after ?? '', 'export {};'];
    writeFileSync(fileOf(s, 'run'), localise(program.join('\n')));
  }
  writeFileSync(
    join(scratch, 'tsconfig.json'),
    JSON.stringify({
      extends: join(repo, 'tsconfig.json'),
      compilerOptions: {
        noUnusedLocals: false,
        types: ['node'],
        typeRoots: [join(repo, 'node_modules/@types')],
      },
      include: ['*.check.ts'],
    }),
  );
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('TypeScript samples', () => {
  it('are found', () => expect(typescript.length).toBeGreaterThanOrEqual(10));

  it('type-check against the package entry points', async () => {
    const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', join(scratch, 'tsconfig.json')], {
      cwd: repo,
    }).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    );
    const pages = result.replace(/[\w-]+-(\d+)\.check\.ts/g, (name, line: string) => {
      const s = typescript.find((t) => fileOf(t, 'check').endsWith(name));
      return s ? `${where(s)} (sample line ${line})` : name;
    });
    expect(pages).toBe('');
  }, 120_000);

  for (const s of typescript) {
    const note = s.note ?? '';
    if (note.includes('typecheck only:')) {
      it.skip(`${where(s)} runs (${note.slice(note.indexOf('typecheck only:'))})`, () => {});
      continue;
    }
    if (note.startsWith('run by ')) {
      it(`${where(s)} runs in ${note.slice(7)}`, () => {
        const test = join(repo, note.slice(7));
        expect(existsSync(test)).toBe(true);
        expect(readFileSync(test, 'utf8')).toContain(s.page);
      });
      continue;
    }
    const driver = /^run ([\w-]+)/.exec(note)?.[1];
    it(`${where(s)} runs`, async () => {
      await runSample(s, driver ? DRIVERS[driver] : undefined, driver?.startsWith('postgres'));
    }, 90_000);
  }
});

// ---- Running ----

const children: ChildProcess[] = [];
const sandboxes: Sandbox[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const sandbox of sandboxes) await sandbox.close();
});

/** Drives a sample that serves until it is stopped. */
type Driver = (child: ChildProcess, output: () => string, sandbox: Sandbox, port: number) => Promise<void>;

/** A person starts the bot; the sample's bot must answer with the sign-up wizard's first question. */
async function botAnswersAStart(sandbox: Sandbox): Promise<void> {
  const ann = await sandbox.control.createUser({ first_name: 'Ann' });
  await sandbox.control.startBot(ann.user_id);
  const view = await sandbox.control.waitForView(
    ann.user_id,
    'dialog',
    (v) => v.messages.some((m) => m.from === 'bot'),
    { timeoutMs: 30_000 },
  );
  expect(view.messages.find((m) => m.from === 'bot')?.text).toContain('What is your');
}

const DRIVERS: Record<string, Driver> = {
  'until-stopped': async (_child, output, sandbox) => {
    await eventually('the sample to start', () => output().includes('running as'), 30_000);
    await botAnswersAStart(sandbox);
  },
  // The same on a fresh PostgreSQL database (DATABASE_URL).
  'postgres-until-stopped': async (_child, output, sandbox) => {
    await eventually('the sample to start', () => output().includes('running as'), 30_000);
    await botAnswersAStart(sandbox);
  },
  // A process of its own composition on PostgreSQL: it says when it listens, and subscribed its webhook.
  'postgres-process': async (_child, output, sandbox) => {
    await eventually('the sample to listen', () => output().includes('listening'), 30_000);
    await botAnswersAStart(sandbox);
  },
  'web-service': async (_child, output, sandbox, port) => {
    await eventually(
      `the service on port ${port} (${output()})`,
      async () => {
        const answer = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
        return answer?.ok;
      },
      30_000,
    );
    await botAnswersAStart(sandbox);
  },
};

async function runSample(s: Sample, driver?: Driver, postgres = false): Promise<void> {
  const database = postgres ? await freshDatabase() : undefined;
  const cwd = mkdtempSync(join(tmpdir(), 'botflow-sample-'));
  symlinkSync(join(repo, 'flows'), join(cwd, 'flows'));
  const sandbox = await startSandbox({ limits: false });
  sandboxes.push(sandbox);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true' };
  for (const key of Object.keys(env)) if (key.startsWith('BOTFLOW_')) delete env[key];
  Object.assign(env, {
    BOT_TOKEN: sandbox.token,
    BOT_API_URL: sandbox.baseUrl,
    BOT_DB: join(cwd, 'bot.db'),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    PORT: String(port),
    WEBHOOK_SECRET: 'sample_webhook_secret',
    ...(database ? { DATABASE_URL: database.url } : {}),
  });
  const child = spawn(process.execPath, ['--import', TSX, fileOf(s, 'run')], { cwd, env });
  children.push(child);
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    if (driver) {
      await Promise.race([
        driver(child, () => output, sandbox, port),
        exited.then((code) => {
          throw new Error(`the sample exited with ${code} while it was being driven:\n${output}`);
        }),
      ]);
      child.kill('SIGTERM');
    }
    const code = await Promise.race([
      exited,
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 60_000)),
    ]);
    expect({ sample: where(s), code, output: code === 0 ? '' : output }).toEqual({
      sample: where(s),
      code: 0,
      output: '',
    });
  } finally {
    child.kill('SIGKILL');
    await exited;
    rmSync(cwd, { recursive: true, force: true });
    await database?.drop();
  }
}

// ---- YAML, Fluent and shell ----

/**
 * The registry a page gives its flows and transcripts: the TypeScript sample noted `registry of this page's
 * transcripts`, loaded as botflow loads a project's registry.ts (through tsx, with its own copy of botflow).
 */
async function registryOf(page: string): Promise<Registry> {
  const sample = typescript.find((x) => x.page === page && x.note === "registry of this page's transcripts");
  if (!sample) return EMPTY_REGISTRY;
  return (await importCode(fileOf(sample, 'run'))).default as Registry;
}

describe('YAML samples', () => {
  // The sections of the configuration file (a sample made only of them is a piece of it).
  const CONFIG_SECTIONS = new Set(KEYS.map((k) => k.path.split('.')[0]!));
  const leafPaths = (value: object, prefix = ''): string[] =>
    Object.entries(value).flatMap(([key, v]) =>
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? leafPaths(v, `${prefix}${key}.`)
        : [`${prefix}${key}`],
    );
  for (const s of all.filter((x) => x.lang === 'yaml')) {
    it(`${where(s)} is valid`, async () => {
      if (/^turns:/m.test(s.code)) {
        const { problems } = parseTranscripts(s.code, where(s));
        expect(problems).toEqual([]);
        return;
      }
      const doc = parseYaml(s.code, { merge: true }) as Record<string, unknown>;
      if ('services' in doc) {
        // A deployment sample (compose file): every BOTFLOW_* variable it sets is one botflow reads.
        const known = new Set(KEYS.flatMap((k) => k.env));
        const services = Object.values(doc.services as Record<string, { environment?: object }>);
        expect(services.length).toBeGreaterThan(0);
        for (const service of services) {
          const names = Object.keys(service.environment ?? {}).filter((n) => n.startsWith('BOTFLOW_'));
          expect(names.length).toBeGreaterThan(0);
          expect(names.filter((n) => !known.has(n))).toEqual([]);
        }
      } else if ('spec' in doc) {
        // A Kubernetes manifest (docs/scaling.md): every BOTFLOW_* variable its containers set is one botflow reads.
        const known = new Set(KEYS.flatMap((k) => k.env));
        type Container = { env?: { name: string }[] };
        const spec = doc.spec as { template?: { spec?: { containers?: Container[] } } };
        const containers = spec.template?.spec?.containers ?? [];
        expect(containers.length).toBeGreaterThan(0);
        const names = containers
          .flatMap((c) => (c.env ?? []).map((e) => e.name))
          .filter((n) => n.startsWith('BOTFLOW_'));
        expect(names.length).toBeGreaterThan(0);
        expect(names.filter((n) => !known.has(n))).toEqual([]);
      } else if ('bots' in doc && Object.keys(doc).every((k) => k === 'bots' || CONFIG_SECTIONS.has(k))) {
        // A configuration with bots (docs/bots.md): botflow reads it without a problem.
        const dir = mkdtempSync(join(tmpdir(), 'botflow-bots-sample-'));
        writeFileSync(join(dir, 'botflow.config.yaml'), s.code);
        expect(() => loadConfig({ env: {}, cwd: dir })).not.toThrow();
        rmSync(dir, { recursive: true, force: true });
      } else if (Object.keys(doc).every((k) => CONFIG_SECTIONS.has(k))) {
        // A piece of botflow.config.yaml: every setting it names is one botflow reads.
        const known = new Set(KEYS.map((k) => k.path));
        expect(leafPaths(doc).filter((path) => !known.has(path))).toEqual([]);
      } else if ('segment' in doc) {
        // A campaign file (docs/campaigns.md): it must read as one.
        expect(() => parseCampaignSource(s.code, 'campaigns/sample.campaign.yaml')).not.toThrow();
      } else if ('flow' in doc) {
        const { steps, migrate: _migrate, ...header } = doc;
        const parsed = FlowFile.safeParse({ ...header, steps: { [String(doc.start)]: { type: 'end' } } });
        expect(parsed.error?.issues ?? []).toEqual([]);
        const whole =
          steps && typeof steps === 'object' && Object.values(steps).every((x) => x && typeof x === 'object');
        if (whole && Object.keys(steps).length > 0) {
          // A whole flow: it must pass botflow check's errors and compile, as a reader would use it; but
          // for a sample showing a mistake, whose printout test/docs/check-samples.test.ts pins.
          const file = `${String(doc.flow)}.flow.yaml`;
          const registry = await registryOf(s.page);
          const { problems } = compileSources([{ file, source: s.code }], registry, new Map());
          if (s.note !== 'run by test/docs/check-samples.test.ts')
            expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
        }
      } else if ('migrate' in doc) {
        const parsed = Migration.array().safeParse(doc.migrate);
        expect(parsed.error?.issues ?? []).toEqual([]);
      } else {
        for (const [id, step] of Object.entries(doc)) {
          const parsed = Step.safeParse(step);
          expect({ id, issues: parsed.error?.issues ?? [] }).toEqual({ id, issues: [] });
        }
      }
    });
  }
});

describe('transcript samples', () => {
  // A transcript beside a whole flow of the same name on its page runs against it, as `botflow test` would,
  // with the page's registry: its real tasks run (`tasks: real`) against the transcript's `http:` fakes.
  const flowsOf = (page: string, registry: Registry) =>
    all
      .filter(
        (x) => x.page === page && x.lang === 'yaml' && /^flow: \w+/m.test(x.code) && /^steps:/m.test(x.code),
      )
      .flatMap((x) => {
        const id = /^flow: (\w+)/m.exec(x.code)![1]!;
        return compileSources([{ file: `${id}.flow.yaml`, source: x.code }], registry, new Map()).flows;
      });
  const flowNamed = (page: string, flow: string | undefined) =>
    all.some(
      (x) =>
        x.page === page && x.lang === 'yaml' && /^steps:/m.test(x.code) && x.code.includes(`flow: ${flow}\n`),
    );
  for (const s of all.filter((x) => x.lang === 'yaml' && /^turns:/m.test(x.code))) {
    const flow = /^flow: (\w+)/m.exec(s.code)?.[1];
    if (!flowNamed(s.page, flow)) continue;
    it(`${where(s)} passes against its page's flow "${flow}"`, async () => {
      const registry = await registryOf(s.page);
      const flows = flowsOf(s.page, registry).filter((f) => f.id === flow);
      expect(flows.map((f) => f.id)).toEqual([flow]);
      const { transcripts } = parseTranscripts(s.code, where(s));
      for (const t of transcripts) {
        const result = await runTranscript(t, { flows, tasks: registry.tasks });
        expect({ name: t.name, failures: result.failure ? [result.failure.report] : [] }).toEqual({
          name: t.name,
          failures: [],
        });
      }
    });
  }
});

describe('Fluent samples', () => {
  for (const s of all.filter((x) => x.lang === 'ftl')) {
    it(`${where(s)} parses`, () => {
      const catalog = loadCatalog('en', where(s), s.code);
      expect(catalog.broken).toEqual([]);
    });
  }
});

describe('shell samples', () => {
  for (const s of all.filter((x) => x.lang === 'sh')) {
    it(`${where(s)} names only botflow commands that exist`, async () => {
      const used = [...s.code.matchAll(/(?<!create )\bbotflow\s+([a-z]+)/gm)].map((m) => m[1]!);
      for (const name of new Set(used)) {
        const log = console.log;
        console.log = () => {};
        try {
          expect({ command: name, exit: await cli([name, '--help']) }).toEqual({ command: name, exit: 0 });
        } finally {
          console.log = log;
        }
      }
    });
  }
});
