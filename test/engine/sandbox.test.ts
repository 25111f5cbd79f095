// End to end on real parts: the sandbox over HTTP on 127.0.0.1, the Bot API client, the throttled
// scheduler, intake's long polling into the inbox, and the started engine on a SQLite file. People act
// through the sandbox's control API; assertions read what they see.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { BotApi } from '../../src/client/client.ts';
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import { createEngine, type Engine } from '../../src/engine/engine.ts';
import type { FlowDefinition, FlowEvent } from '../../src/engine/step/contract.ts';
import { defineFlow, say, uploadAndSend } from '../../src/engine/step/helpers.ts';
import { type PollingHandle, startPolling } from '../../src/intake/polling.ts';
import { type Sandbox, type SeenMessage, startSandbox } from '../../src/sandbox/index.ts';
import { openDatabase } from '../../src/store/database.ts';
import { eventually } from '../support/eventually.ts';
import { signupFlow } from './fixtures.ts';

const SECRET = 'sandbox-test-secret-0123456789';
/** Generous: the machine running the tests may be busy. */
const PATIENT = { timeoutMs: 30_000 };

class Bot {
  readonly dir = mkdtempSync(join(tmpdir(), 'botflow-engine-e2e-'));
  db!: Database.Database;
  engine!: Engine;
  api!: BotApi;
  scheduler!: Scheduler;
  polling: PollingHandle | undefined;

  constructor(
    readonly sandbox: Sandbox,
    readonly flows: FlowDefinition[] = [signupFlow],
  ) {}

  /** Opens the database and the engine; with `send`, the engine sends and intake polls. */
  up(send: boolean): this {
    this.db = openDatabase({ path: join(this.dir, 'bot.db') });
    this.api = new BotApi({ token: this.sandbox.token, baseUrl: this.sandbox.baseUrl });
    this.scheduler = new Scheduler({ api: this.api });
    this.engine = createEngine({
      db: this.db,
      flows: this.flows,
      secret: SECRET,
      ...(send ? { api: this.api, scheduler: this.scheduler } : {}),
    });
    if (send) this.engine.start();
    this.polling = startPolling({
      api: this.api,
      db: this.db,
      timeout: 1,
      onAccepted: () => this.engine.notify(),
    });
    return this;
  }

  /** Stops everything, like a process that exits (or dies: calls in flight are not waited for). */
  async down(): Promise<void> {
    await this.polling?.stop();
    await this.engine.stop({ waitMs: 0 });
    this.db.close();
    this.scheduler.close();
    await this.api.close();
  }
}

let sandbox: Sandbox | undefined;
let bot: Bot | undefined;
afterEach(async () => {
  await bot?.down().catch(() => {});
  await sandbox?.close();
  if (bot) rmSync(bot.dir, { recursive: true, force: true });
  bot = undefined;
  sandbox = undefined;
});

const eventuallyTrue = (what: string, probe: () => boolean) => eventually(what, probe, PATIENT);

function botTexts(messages: SeenMessage[]): (string | undefined)[] {
  return messages.filter((m) => m.from === 'bot').map((m) => m.text);
}

/** Ann starts the bot, gives her name, and gets the plan menu: its message. */
async function reachPlanMenu(control: Sandbox['control'], ann: number) {
  await control.startBot(ann);
  await control.waitForView(
    ann,
    'dialog',
    (v) => botTexts(v.messages).includes('What is your name?'),
    PATIENT,
  );
  await control.sendText(ann, 'dialog', 'Ann');
  const withMenu = await control.waitForView(
    ann,
    'dialog',
    (v) => v.messages.some((m) => m.keyboard),
    PATIENT,
  );
  return withMenu.messages.find((m) => m.keyboard)!;
}

describe('engine on the sandbox', () => {
  it('runs a dialog with buttons for a person, answering presses and handling a stale one', async () => {
    sandbox = await startSandbox();
    bot = new Bot(sandbox).up(true);
    const control = sandbox.control;
    const ann = (await control.createUser({ first_name: 'Ann' })).user_id;

    const menu = await reachPlanMenu(control, ann);
    expect(menu.text).toBe('Hello Ann! Pick a plan:');

    await control.pressButton(ann, menu.message_id, { text: 'Pro' });
    const confirmed = await control.waitForView(
      ann,
      'dialog',
      (v) => botTexts(v.messages).includes('Ann on pro. Type yes to finish.'),
      PATIENT,
    );
    expect(confirmed.messages.find((m) => m.message_id === menu.message_id)?.text).toBe('Plan: pro');

    // The edited menu kept its keyboard: a second press is stale and gets the flow's notice, as a
    // message the person sees (a notification-only answer is not displayed by the platform's clients).
    await control.pressButton(ann, menu.message_id, { text: 'Basic' });
    const notified = await control.waitForView(
      ann,
      'dialog',
      (v) => botTexts(v.messages).includes('That menu is old.'),
      PATIENT,
    );
    expect(notified.notifications).toEqual([]);
    expect(bot.engine.sessions.get(`u:${ann}`)).toMatchObject({ step: 'confirm', context: { plan: 'pro' } });

    const requests = await control.requests();
    const answers = requests.filter((r) => r.path.startsWith('/answers'));
    expect(answers).toHaveLength(2);
  });

  for (const variant of ['withoutMessage', 'withoutChatId'] as const) {
    it(`goes on when a press arrives ${variant === 'withoutMessage' ? 'without message' : 'without recipient.chat_id'}`, async () => {
      sandbox = await startSandbox({ callbackVariants: { [variant]: 1 } });
      const seen: Record<string, unknown>[] = [];
      sandbox.onUpdate((u) => seen.push(u));
      bot = new Bot(sandbox).up(true);
      const control = sandbox.control;
      await eventuallyTrue('the first poll', () => bot!.polling?.marker !== undefined);
      const ann = (await control.createUser({ first_name: 'Ann' })).user_id;
      const menu = await reachPlanMenu(control, ann);
      await control.pressButton(ann, menu.message_id, { text: 'Pro' });
      const after = await control.waitForView(
        ann,
        'dialog',
        (v) => botTexts(v.messages).includes('Ann on pro. Type yes to finish.'),
        PATIENT,
      );
      // The pressed menu was redrawn even without its message in the update (the answer carries the edit).
      expect(after.messages.find((m) => m.message_id === menu.message_id)?.text).toBe('Plan: pro');
      const press = seen.find((u) => u.update_type === 'message_callback') as {
        message?: { recipient: { chat_id?: number } };
      };
      if (variant === 'withoutMessage') expect(press.message).toBeUndefined();
      else expect(press.message?.recipient.chat_id).toBeUndefined();
      expect(bot.engine.sessions.get(`u:${ann}`)).toMatchObject({
        step: 'confirm',
        context: { plan: 'pro' },
      });
    });
  }

  it('sends after a restart what was committed before the process stopped, once', async () => {
    sandbox = await startSandbox();
    bot = new Bot(sandbox).up(false); // intake and steps run, nothing is sent: the process "dies" here
    const control = sandbox.control;
    const people = [];
    for (const name of ['Ann', 'Bob', 'Cy'])
      people.push((await control.createUser({ first_name: name })).user_id);
    for (const id of people) await control.startBot(id);
    await eventually(
      'the steps committed',
      () => {
        bot!.engine.processPending();
        return bot!.engine.sessions.list().length >= people.length;
      },
      20_000,
    );
    for (const id of people) expect(botTexts((await control.view(id)).messages)).toEqual([]);
    await bot.down();

    bot.up(true);
    for (const id of people) {
      const view = await control.waitForView(id, 'dialog', (v) => botTexts(v.messages).length > 0, PATIENT);
      expect(botTexts(view.messages)).toEqual(['What is your name?']);
    }
    await bot.engine.drain();
    for (const id of people)
      expect(botTexts((await control.view(id)).messages)).toEqual(['What is your name?']);
  });

  it('cancels the reminder and stops the session when a person stops the bot', async () => {
    sandbox = await startSandbox();
    bot = new Bot(sandbox).up(true);
    const control = sandbox.control;
    const dan = (await control.createUser({ first_name: 'Dan' })).user_id;
    await control.startBot(dan);
    await control.waitForView(dan, 'dialog', (v) => botTexts(v.messages).length === 1, PATIENT);
    expect(bot.engine.sessions.get(`u:${dan}`)!.timers).toHaveLength(1);
    await control.stopBot(dan);
    await eventually(
      'bot_stopped handled',
      () => bot!.engine.sessions.get(`u:${dan}`)!.status === 'stopped',
      20_000,
    );
    expect(bot.engine.sessions.get(`u:${dan}`)!.timers).toEqual([]);
  });

  it('uploads a file, sends it, and tells the flow the upload and message it got', async () => {
    sandbox = await startSandbox({ attachmentProcessingMs: { file: 0 } });
    const dir = mkdtempSync(join(tmpdir(), 'botflow-upload-'));
    const path = join(dir, 'price-list.txt');
    writeFileSync(path, 'Basic 10, Pro 20\n');
    const flow = defineFlow({
      id: 'prices',
      triggers: [{ kind: 'bot_started' }],
      machine: setup({ types: { events: {} as FlowEvent } }).createMachine({
        initial: 'sending',
        states: {
          sending: {
            entry: uploadAndSend({ type: 'file', source: path }, { text: 'Our prices' }, { ref: 'prices' }),
            on: {
              'effect.done': {
                target: 'sent',
                actions: say(({ event }) =>
                  event.type === 'effect.done'
                    ? `sent as ${(event.result as { message: { body: { mid: string } } }).message.body.mid}`
                    : '',
                ),
              },
            },
          },
          sent: {},
        },
      }),
    });
    bot = new Bot(sandbox, [flow]).up(true);
    const eve = (await sandbox.control.createUser({ first_name: 'Eve' })).user_id;
    await sandbox.control.startBot(eve);
    const view = await sandbox.control.waitForView(eve, 'dialog', (v) => v.messages.length === 2, PATIENT);
    const [file, note] = view.messages;
    expect(file!.text).toBe('Our prices');
    expect(file!.attachments).toEqual([expect.objectContaining({ type: 'file' })]);
    expect(note!.text).toBe(`sent as ${file!.message_id}`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('resends a message that was in flight at a crash even when the same text went out just before', async () => {
    sandbox = await startSandbox();
    // Says the same prompt at the start and after every message.
    const flow = defineFlow({
      id: 'again',
      triggers: [{ kind: 'bot_started' }],
      machine: setup({ types: { events: {} as FlowEvent } }).createMachine({
        initial: 'asking',
        states: { asking: { entry: say('Again?'), on: { message: { target: 'asking', reenter: true } } } },
      }),
    });
    bot = new Bot(sandbox, [flow]).up(true);
    const kim = (await sandbox.control.createUser({ first_name: 'Kim' })).user_id;
    await sandbox.control.startBot(kim);
    await sandbox.control.waitForView(kim, 'dialog', (v) => botTexts(v.messages).length === 1, PATIENT);
    await bot.down();

    // The next prompt is committed, claimed by the dispatcher, and the process dies before it reaches the
    // platform: the row is left `sending`.
    bot.up(false);
    await sandbox.control.sendText(kim, 'dialog', 'more');
    await eventuallyTrue('an update to process', () => bot!.engine.processPending().length > 0);
    bot.db
      .prepare("UPDATE outbox SET status = 'sending', attempts = 1, sent_at = ? WHERE status = 'pending'")
      .run(Date.now());
    await bot.down();

    // After the restart the read-back sees the first "Again?" (seconds old): it is the start's, not this call's.
    bot.up(true);
    const view = await sandbox.control.waitForView(
      kim,
      'dialog',
      (v) => botTexts(v.messages).length === 2,
      PATIENT,
    );
    expect(botTexts(view.messages)).toEqual(['Again?', 'Again?']);
    expect(bot.db.prepare('SELECT status, attempts FROM outbox ORDER BY id').all()).toEqual([
      { status: 'done', attempts: 1 },
      { status: 'done', attempts: 2 },
    ]);
  });
});
