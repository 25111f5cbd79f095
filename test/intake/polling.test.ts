import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { PollingError, startPolling } from '../../src/intake/polling.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/start.ts';
import { openDatabase } from '../../src/store/database.ts';
import { InboxStore } from '../../src/store/inbox.ts';
import { KV_KEYS, KvStore } from '../../src/store/kv.ts';
import { eventually } from '../support/eventually.ts';
import { tempDatabase } from './helpers.ts';

let sandbox: Sandbox;
let api: BotApi;
let env: ReturnType<typeof tempDatabase>;

beforeEach(async () => {
  sandbox = await startSandbox({ limits: false });
  api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
  env = tempDatabase();
});
afterEach(async () => {
  await api.close();
  await sandbox.close();
  env.cleanup();
});

/** The real client, recording the arguments of every getUpdates call. */
function recordingApi(calls: { marker?: number | null }[]) {
  return {
    getSubscriptions: api.getSubscriptions.bind(api),
    getUpdates: (
      args: Parameters<BotApi['getUpdates']>[0],
      options?: Parameters<BotApi['getUpdates']>[1],
    ) => {
      calls.push({ ...args });
      return api.getUpdates(args, options);
    },
  };
}

const texts = (db: Database.Database) =>
  new InboxStore(db)
    .nextPending(1000)
    .filter((r) => r.updateType === 'message_created')
    .map((r) => JSON.parse(r.payload).message.body.text as string);

describe('long polling', () => {
  it('commits updates with the marker that acknowledges them, and resumes from it after a restart', async () => {
    // The bot starts first: its handshake poll gets a marker, and everything after it is delivered.
    const accepted: number[] = [];
    const first = startPolling({ api, db: env.db, timeout: 1, onAccepted: (b) => accepted.push(...b.ids) });
    await eventually('the first marker', () => first.marker !== undefined, 20_000);
    const person = await sandbox.control.createUser({ first_name: 'Аня' });
    await sandbox.control.startBot(person.user_id);
    await sandbox.control.sendMessage(person.user_id, 'dialog', { text: 'Привет, бот!' });
    await eventually('the first message', () => texts(env.db).length === 1, 20_000);
    expect(texts(env.db)).toEqual(['Привет, бот!']);
    const started = env.inbox.nextPending().find((r) => r.updateType === 'bot_started');
    expect(started?.conversationKey).toBe(`u:${person.user_id}`);
    expect(accepted).toHaveLength(2);
    await first.stop();
    const stored = new KvStore(env.db).get(KV_KEYS.pollingMarker);
    expect(stored).toBe(String(first.marker));

    // While nobody polls, the person writes on; then the process "restarts" with the same file.
    await sandbox.control.sendMessage(person.user_id, 'dialog', { text: 'Ты здесь?' });
    env.db.close();
    const db = openDatabase({ path: env.path });
    const calls: { marker?: number | null }[] = [];
    const second = startPolling({ api: recordingApi(calls), db, timeout: 1 });
    try {
      await eventually('the message sent while stopped', () => texts(db).length === 2, 20_000);
      expect(calls[0]?.marker).toBe(Number(stored));
      expect(texts(db)).toEqual(['Привет, бот!', 'Ты здесь?']);
      expect(new InboxStore(db).counts().pending).toBe(3);
    } finally {
      await second.stop();
      db.close();
    }
  });

  it('on the very first start keeps only the latest queued update, as the platform answers, and warns', async () => {
    const person = await sandbox.control.createUser({ first_name: 'Early' });
    await sandbox.control.startBot(person.user_id);
    await sandbox.control.sendMessage(person.user_id, 'dialog', { text: 'before the bot ever ran' });
    const warnings: string[] = [];
    const logger = { info() {}, warn: (...args: unknown[]) => warnings.push(String(args[1])), error() {} };
    const poller = startPolling({ api, db: env.db, timeout: 1, logger });
    try {
      await eventually('the first marker', () => poller.marker !== undefined, 20_000);
      expect(env.inbox.nextPending().map((r) => r.updateType)).toEqual(['message_created']);
      expect(warnings.join('\n')).toMatch(/may have been skipped/);
      await sandbox.control.sendMessage(person.user_id, 'dialog', { text: 'after' });
      await eventually('the message after the first start', () => texts(env.db).length === 2, 20_000);
    } finally {
      await poller.stop();
    }
  });

  it('fetches a batch again when its commit failed, so nothing is skipped', async () => {
    // A marker is stored first (the handshake), so the batch below is fetched with it.
    const handshake = startPolling({ api, db: env.db, timeout: 1 });
    await eventually('the first marker', () => handshake.marker !== undefined, 20_000);
    await handshake.stop();
    const person = await sandbox.control.createUser({ first_name: 'Bo' });
    await sandbox.control.startBot(person.user_id);
    // The inbox refuses message rows until the trigger is dropped: the commit of that batch fails.
    env.db.exec(
      "CREATE TEMP TRIGGER refuse BEFORE INSERT ON inbox WHEN NEW.update_type = 'message_created' " +
        "BEGIN SELECT RAISE(ABORT, 'disk trouble'); END",
    );
    await sandbox.control.sendMessage(person.user_id, 'dialog', { text: 'one' });
    const errors: string[] = [];
    const logger = { info() {}, warn() {}, error: (o: { err: Error }) => errors.push(o.err.message) };
    const poller = startPolling({ api, db: env.db, timeout: 1, initialBackoffMs: 20, logger });
    try {
      await eventually('failed commits', () => errors.length >= 2, 20_000);
      expect(new KvStore(env.db).get(KV_KEYS.pollingMarker)).toBe(String(handshake.marker));
      env.db.exec('DROP TRIGGER refuse');
      await eventually('the batch after the disk recovered', () => texts(env.db).length === 1, 20_000);
      // The whole batch was refused together and arrived together: bot_started too.
      expect(env.inbox.nextPending().map((r) => r.updateType)).toEqual(['bot_started', 'message_created']);
      expect(errors[0]).toMatch(/disk trouble/);
    } finally {
      await poller.stop();
    }
  });

  it('is refused while a webhook subscription is active, with a message that says what to do', async () => {
    await api.subscribe({ url: 'http://127.0.0.1:9/hook', secret: 'abcde_12345' });
    const poller = startPolling({ api, db: env.db, timeout: 1 });
    const error = await poller.done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PollingError);
    expect((error as Error).message).toBe(
      'long polling is refused while a webhook subscription is active: http://127.0.0.1:9/hook. ' +
        'Either run in webhook mode, or remove the subscription (botflow webhook delete http://127.0.0.1:9/hook) and start again.',
    );
  });

  it('stops with a clear error when the token is refused, never showing the token', async () => {
    const bad = new BotApi({ token: 'not-the-token-xyz', baseUrl: sandbox.baseUrl });
    try {
      const poller = startPolling({ api: bad, db: env.db, timeout: 1 });
      const error = (await poller.done.catch((e: unknown) => e)) as Error;
      expect(error).toBeInstanceOf(PollingError);
      expect(error.message).toMatch(/401/);
      expect(error.message).not.toContain('not-the-token-xyz');
    } finally {
      await bad.close();
    }
  });

  it('stops cleanly in the middle of a long poll', async () => {
    const poller = startPolling({ api, db: env.db, timeout: 60 });
    await eventually(
      'polling to begin',
      () => sandbox.requestLog.list().some((r) => r.op === 'getSubscriptions'),
      20_000,
    );
    await poller.stop();
    await expect(poller.done).resolves.toBeUndefined();
  });
});
