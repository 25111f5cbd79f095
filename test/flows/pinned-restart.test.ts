/**
 * Pinned sessions across a restart: the flow file changes while a conversation is half-way, the
 * engine and its database are closed and opened again with the new file, and the old conversation goes
 * on on the version it started on (rebuilt from the source stored in `flow_versions`), unless the new
 * file's `migrate:` block moves it. Real SQLite file, real flow files, the sandbox over real HTTP.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { createEngine, type Engine } from '../../src/engine/engine.ts';
import { loadFlows } from '../../src/flows/load.ts';
import { FlowRebuildError, rebuildFlow } from '../../src/flows/rebuild.ts';
import { defineRegistry, type Registry } from '../../src/flows/registry.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { openDatabase } from '../../src/store/database.ts';
import { InboxStore } from '../../src/store/inbox.ts';

const registry = defineRegistry({
  validators: { not_disposable: (v) => !String(v).endsWith('@mailinator.com') || 'disposable address' },
});

const v1 = `flow: signup
version: 1
start: ask_name
triggers: [{ bot_started: true }]
steps:
  ask_name:
    type: input
    say: "What is your name?"
    input: text
    retries: { max: 3, exhausted: { goto: done } }
    save: name
    next: ask_email
  ask_email:
    type: input
    say: "Thanks {{name}}. Your email?"
    input: email
    validate:
      - { rule: not_disposable, error: "No throwaway addresses, please." }
    retries: { max: 3, exhausted: { goto: done } }
    save: email
    next: done
  done:
    type: end
    say: "v1: welcome {{name}} &lt;{{email}}&gt;"
`;

const v2 = `flow: signup
version: 2
start: ask_name
triggers: [{ bot_started: true }]
steps:
  ask_name:
    type: input
    say: "Welcome! Your name, please?"
    input: text
    retries: { max: 3, exhausted: { goto: done } }
    save: name
    next: ask_city
  ask_city:
    type: input
    say: "Which city, {{name}}?"
    input: text
    retries: { max: 3, exhausted: { goto: done } }
    save: city
    next: ask_mail
  ask_mail:
    type: input
    say: "And your email?"
    input: email
    retries: { max: 3, exhausted: { goto: done } }
    save: email
    next: done
  done:
    type: end
    say: "v2: welcome {{name}} from {{city}} &lt;{{email}}&gt;"
`;

const migration = `migrate:
  - from: [1]
    steps: { ask_email: ask_mail }
    context: { set: { city: unknown } }
`;

/** A bot whose process can be restarted: engine and database closed, then opened again from the files. */
class RestartableBot {
  engine!: Engine;
  db!: Database.Database;
  readonly logs: Record<string, unknown>[] = [];
  private marker: number | undefined;
  private constructor(
    readonly sandbox: Sandbox,
    readonly api: BotApi,
    readonly dir: string,
  ) {}

  static async start(flowFile: string): Promise<RestartableBot> {
    const sandbox = await startSandbox({ limits: false, attachmentProcessingMs: { file: 0, image: 0 } });
    const api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
    const bot = new RestartableBot(sandbox, api, mkdtempSync(join(tmpdir(), 'botflow-pinned-')));
    bot.writeFlow(flowFile);
    await bot.boot(registry);
    return bot;
  }

  writeFlow(text: string) {
    writeFileSync(join(this.dir, 'signup.flow.yaml'), text);
  }

  /** What `botflow run` does at start: open the database, load the flow folder, create the engine. */
  async boot(programmers: Registry) {
    this.db = openDatabase({ path: join(this.dir, 'bot.db') });
    const loaded = await loadFlows(this.dir, { registry: programmers });
    expect(loaded.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const logger = pino({ level: 'info' }, { write: (line: string) => this.logs.push(JSON.parse(line)) });
    this.engine = createEngine({
      db: this.db,
      api: this.api,
      flows: loaded.flows,
      secret: 'pinned-secret-0123456789',
      logger,
      rebuildFlow: (source) => rebuildFlow(source, { registry: programmers }),
    });
  }

  async restart(programmers: Registry = registry) {
    await this.engine.stop({ waitMs: 2_000 });
    this.db.close();
    await this.boot(programmers);
  }

  /** Moves every pending update from the sandbox into the inbox, then lets the engine finish its work. */
  async pump(rounds = 3) {
    const inbox = new InboxStore(this.db);
    for (let i = 0; i < rounds; i++) {
      const url = new URL(`${this.sandbox.baseUrl}/updates`);
      url.searchParams.set('timeout', '0');
      if (this.marker !== undefined) url.searchParams.set('marker', String(this.marker));
      const res = await fetch(url, { headers: { Authorization: this.sandbox.token } });
      const body = (await res.json()) as { updates: unknown[]; marker?: number };
      if (body.marker !== undefined) this.marker = body.marker;
      if (body.updates.length) inbox.append(body.updates.map((u) => updateEntry(JSON.stringify(u))));
      this.engine.start();
      this.engine.processPending();
      await this.engine.drain();
      this.engine.processPending();
      await this.engine.drain();
      if (!body.updates.length && i > 0) return;
    }
  }

  async say(userId: number, text: string) {
    await this.sandbox.control.sendText(userId, 'dialog', text);
    await this.pump();
  }

  async lastBot(userId: number): Promise<string | undefined> {
    const ms = (await this.sandbox.control.view(userId)).messages.filter((m) => m.from === 'bot');
    return ms[ms.length - 1]?.text;
  }

  async newPerson(name: string): Promise<number> {
    const user = await this.sandbox.control.createUser({ first_name: name });
    await this.sandbox.control.startBot(user.user_id, {});
    await this.pump();
    return user.user_id;
  }

  sessionVersion(userId: number): string | undefined {
    const row = this.db.prepare('SELECT flow_version AS v FROM sessions WHERE user_id = ?').get(userId) as
      | { v: string }
      | undefined;
    return row?.v;
  }

  async close() {
    await this.engine.stop({ waitMs: 2_000 });
    await this.api.close();
    await this.sandbox.close();
    this.db.close();
  }
}

let bot: RestartableBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

/** Ann starts on v1 and stops half-way, at the email question. */
async function annHalfWay() {
  bot = await RestartableBot.start(v1);
  const ann = await bot.newPerson('Ann');
  expect(await bot.lastBot(ann)).toBe('What is your name?');
  await bot.say(ann, 'Ann');
  expect(await bot.lastBot(ann)).toBe('Thanks Ann. Your email?');
  return { bot, ann, v1Version: bot.sessionVersion(ann)! };
}

describe('sessions pinned to a flow version, across a restart with a changed flow file', () => {
  it('the old conversation finishes on its version while a new one starts on the new file', async () => {
    const { bot, ann, v1Version } = await annHalfWay();
    bot.writeFlow(v2);
    await bot.restart();
    expect(bot.engine.flows.latest('signup')?.version).toMatch(/^2-/);
    expect(bot.logs.some((l) => l.level === 40)).toBe(false);

    // The rebuilt v1 still runs its validator from the programmers' registry.
    await bot.say(ann, 'ann@mailinator.com');
    expect(await bot.lastBot(ann)).toBe('No throwaway addresses, please.');
    await bot.say(ann, 'ann@example.org');
    expect(await bot.lastBot(ann)).toBe('v1: welcome Ann <ann@example.org>');
    expect(bot.sessionVersion(ann)).toBe(v1Version);

    const bob = await bot.newPerson('Bob');
    expect(await bot.lastBot(bob)).toBe('Welcome! Your name, please?');
    await bot.say(bob, 'Bob');
    expect(await bot.lastBot(bob)).toBe('Which city, Bob?');
    expect(bot.sessionVersion(bob)).toMatch(/^2-/);
  });

  it('survives a second restart while still pinned (the rebuilt version keeps its stored source)', async () => {
    const { bot, ann } = await annHalfWay();
    bot.writeFlow(v2);
    await bot.restart();
    await bot.restart();
    await bot.say(ann, 'ann@example.org');
    expect(await bot.lastBot(ann)).toBe('v1: welcome Ann <ann@example.org>');
  });

  it('with a migrate: block the old conversation moves to the new version instead', async () => {
    const { bot, ann } = await annHalfWay();
    bot.writeFlow(v2 + migration);
    await bot.restart();
    await bot.say(ann, 'ann@example.org');
    expect(await bot.lastBot(ann)).toBe('v2: welcome Ann from unknown <ann@example.org>');
    expect(bot.sessionVersion(ann)).toMatch(/^2-/);
  });

  it('when the old version no longer builds, a warning names the flow, version, sessions and the fix', async () => {
    const { bot, v1Version } = await annHalfWay();
    bot.writeFlow(v2);
    await bot.restart(defineRegistry({})); // the not_disposable validator was removed
    const warning = bot.logs.find((l) => l.level === 40);
    expect(warning).toMatchObject({ flow: 'signup', version: v1Version, sessions: 1 });
    expect(String(warning?.msg)).toMatch(/no longer builds.*not_disposable/);
    expect(String(warning?.msg)).toMatch(/migrate: block|engine\.sessions\.end\(\)/);
    expect(bot.engine.flows.get('signup', v1Version)).toBeUndefined();
  });
});

describe('a flow with catalogs, across a restart', () => {
  const quiz = (version: number, ids: string) => `flow: quiz
version: ${version}
start: ask
i18n: { default_locale: en }
triggers: [{ bot_started: true }]
steps:
  ask:
    type: input
    say: ${ids}-ask
    input: text
    retries: { max: 3, exhausted: { goto: done } }
    save: answer
    next: done
  done:
    type: end
    say: ${ids}-done
`;

  it('the old version renders with the catalog texts it was stored with, even after they left the file', async () => {
    bot = await RestartableBot.start(v1);
    const writeQuiz = (version: number, ids: string, ftl: string) => {
      writeFileSync(join(bot!.dir, 'quiz.flow.yaml'), quiz(version, ids));
      // Only one flow may start on bot_started (botflow check refuses two): the sign-up keeps its command.
      writeFileSync(
        join(bot!.dir, 'signup.flow.yaml'),
        v1.replace('[{ bot_started: true }]', '[{ command: signup }]'),
      );
      mkdirSync(join(bot!.dir, 'locales'), { recursive: true });
      writeFileSync(join(bot!.dir, 'locales', 'en.ftl'), ftl);
    };
    writeQuiz(1, 'old', 'old-ask = Old question?\nold-done = Old answer: { $answer }\n');
    await bot.restart();
    const ann = await bot.newPerson('Ann');
    expect(await bot.lastBot(ann)).toBe('Old question?');

    writeQuiz(2, 'new', 'new-ask = New question?\nnew-done = New answer: { $answer }\n');
    await bot.restart();
    await bot.say(ann, '42');
    expect(await bot.lastBot(ann)).toBe('Old answer: 42');
    const bob = await bot.newPerson('Bob');
    expect(await bot.lastBot(bob)).toBe('New question?');
  });
});

describe('rebuildFlow', () => {
  it('gives back exactly the stored version, and refuses a source that compiles to another one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-rebuild-'));
    writeFileSync(join(dir, 'signup.flow.yaml'), v1);
    const [flow] = (await loadFlows(dir, { registry })).flows;
    expect(flow?.source).toBeTypeOf('string');
    expect(rebuildFlow(flow!.source!, { registry }).version).toBe(flow!.version);

    const tampered = JSON.parse(flow!.source!) as { files: { source: string }[] };
    tampered.files[0]!.source = tampered.files[0]!.source.replace('Your email?', 'Email?');
    expect(() => rebuildFlow(JSON.stringify(tampered), { registry })).toThrow(FlowRebuildError);
    expect(() => rebuildFlow(JSON.stringify(tampered), { registry })).toThrow(
      new RegExp(`flow "signup" version ${flow!.version}: its stored source now compiles to version 1-`),
    );
    expect(() => rebuildFlow('{"kind":"other"}')).toThrow(/not a flow-file source/);
  });
});
