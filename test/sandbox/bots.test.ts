/** Several bots in one sandbox: a token, an id, chats, updates, webhooks and limits each; people shared. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { raw } from './helpers.ts';

const open: Sandbox[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startSandbox>[0] = {}) {
  const sandbox = await startSandbox(options);
  open.push(sandbox);
  return sandbox;
}

/** A sandbox with the default bot and a second one, `b` (its token and id). */
async function twoBots(options: Parameters<typeof startSandbox>[0] = {}) {
  const sandbox = await start({ limits: false, ...options });
  const b = sandbox.addBot({ name: 'Weather' });
  return { sandbox, b, control: { a: sandbox.control, b: sandbox.control.forBot(b.id) } };
}

const updates = async (sandbox: Sandbox, token: string) =>
  (await raw(sandbox, 'GET', '/updates?timeout=0&marker=1', undefined, token)).body as {
    updates: { update_type: string; message?: { body: { text?: string }; recipient: { chat_id: number } } }[];
  };

describe('several bots in one sandbox', () => {
  it('answers /me for each token with its own bot, lists the bots without tokens, and keeps tokens unenumerable', async () => {
    const { sandbox, b } = await twoBots();
    expect(b).toMatchObject({ name: 'Weather', username: 'weather_bot' });
    expect(b.id).not.toBe(sandbox.bot.user_id);
    expect(JSON.stringify(b)).not.toContain(b.token);
    const meA = await raw(sandbox, 'GET', '/me');
    const meB = await raw(sandbox, 'GET', '/me', undefined, b.token);
    expect(meA.body).toMatchObject({ user_id: sandbox.bot.user_id, username: 'sandbox_bot', is_bot: true });
    expect(meB.body).toMatchObject({ user_id: b.id, first_name: 'Weather', username: 'weather_bot' });
    expect((await raw(sandbox, 'GET', '/me', undefined, `${b.token}x`)).status).toBe(401);
    expect(sandbox.bots()).toEqual([
      { id: sandbox.bot.user_id, name: 'Sandbox Bot', username: 'sandbox_bot' },
      { id: b.id, name: 'Weather', username: 'weather_bot' },
    ]);
    const listed = await sandbox.control.bots();
    expect(listed).toEqual(sandbox.bots());
    expect(JSON.stringify(listed)).not.toContain('sandbox-token');
  });

  it("gives a person a dialog with each bot (other chat ids), and a message reaches only its bot's updates", async () => {
    const { sandbox, b, control } = await twoBots();
    const seenA: string[] = [];
    const seenB: string[] = [];
    sandbox.onUpdate((u) => seenA.push(u.update_type));
    sandbox.onUpdate((u) => seenB.push(u.update_type), b.id);
    const ann = await control.a.createUser({ first_name: 'Ann' });
    const withA = await control.a.startBot(ann.user_id);
    const withB = await control.b.startBot(ann.user_id);
    expect(withB.chat_id).not.toBe(withA.chat_id);
    await control.b.sendText(ann.user_id, 'dialog', 'hello B');
    const forA = await updates(sandbox, sandbox.token);
    const forB = await updates(sandbox, b.token);
    expect(forA.updates.map((u) => u.update_type)).toEqual(['bot_started']);
    expect(forB.updates.map((u) => u.update_type)).toEqual(['bot_started', 'message_created']);
    expect(forB.updates[1]!.message).toMatchObject({
      body: { text: 'hello B' },
      recipient: { chat_id: withB.chat_id },
    });
    expect(seenA).toEqual(['bot_started']);
    expect(seenB).toEqual(['bot_started', 'message_created']);
    // What the person sees is per bot too.
    expect((await control.a.view(ann.user_id)).messages).toHaveLength(0);
    expect((await control.b.view(ann.user_id)).messages.map((m) => m.text)).toEqual(['hello B']);
  });

  it("delivers a bot's updates to its own webhook; the other bot keeps long polling", async () => {
    const received: unknown[] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { sandbox, b, control } = await twoBots();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      expect((await raw(sandbox, 'POST', '/subscriptions', { url }, b.token)).status).toBe(200);
      expect((await raw(sandbox, 'GET', '/subscriptions', undefined, b.token)).body).toMatchObject({
        subscriptions: [{ url }],
      });
      expect((await raw(sandbox, 'GET', '/subscriptions')).body).toEqual({ subscriptions: [] });
      // Polling is closed to the bot with a webhook only.
      expect((await raw(sandbox, 'GET', '/updates?timeout=0', undefined, b.token)).status).toBe(405);
      expect((await raw(sandbox, 'GET', '/updates?timeout=0')).status).toBe(200);
      const ann = await control.a.createUser({ first_name: 'Ann' });
      await control.b.startBot(ann.user_id);
      await control.a.startBot(ann.user_id);
      await control.b.sendText(ann.user_id, 'dialog', 'to B');
      await expect.poll(() => received.length).toBe(2);
      expect(received.map((u) => (u as { update_type: string }).update_type)).toEqual([
        'bot_started',
        'message_created',
      ]);
      expect((await updates(sandbox, sandbox.token)).updates.map((u) => u.update_type)).toEqual([
        'bot_started',
      ]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("refuses a bot the other bot's chats and messages with 403 chat.denied", async () => {
    const { sandbox, b, control } = await twoBots();
    const ann = await control.a.createUser({ first_name: 'Ann' });
    const { chat_id: chatB } = await control.b.startBot(ann.user_id);
    const sent = await raw(sandbox, 'POST', `/messages?chat_id=${chatB}`, { text: 'from B' }, b.token);
    expect(sent.status).toBe(200);
    const mid = (sent.body as { message: { body: { mid: string } } }).message.body.mid;
    const denied = { status: 403, body: { code: 'chat.denied' } };
    expect(await raw(sandbox, 'POST', `/messages?chat_id=${chatB}`, { text: 'from A' })).toMatchObject(
      denied,
    );
    expect(await raw(sandbox, 'GET', `/chats/${chatB}`)).toMatchObject(denied);
    expect(await raw(sandbox, 'GET', `/messages/${mid}`)).toMatchObject(denied);
    expect(await raw(sandbox, 'PUT', `/messages?message_id=${mid}`, { text: 'edited by A' })).toMatchObject(
      denied,
    );
    expect(await raw(sandbox, 'DELETE', `/messages?message_id=${mid}`)).toMatchObject(denied);
    // Ann never started bot A: A cannot write to her by user id.
    expect(await raw(sandbox, 'POST', `/messages?user_id=${ann.user_id}`, { text: 'hi' })).toMatchObject(
      denied,
    );
    expect((await raw(sandbox, 'GET', `/messages?message_ids=${mid}`)).body).toEqual({ messages: [] });
    expect((await control.b.view(ann.user_id)).messages.map((m) => m.text)).toEqual(['from B']);
  });

  it("keeps uploads per bot: an image upload needs its own bot's token, and its attachment token is unknown to the other bot", async () => {
    let now = 1_775_000_000_000;
    const { sandbox, b, control } = await twoBots({ now: () => now });
    const ann = await control.a.createUser({ first_name: 'Ann' });
    await control.a.startBot(ann.user_id);
    await control.b.startBot(ann.user_id);
    const slot = (await raw(sandbox, 'POST', '/uploads?type=image', undefined, b.token)).body as {
      url: string;
    };
    const form = () => {
      const f = new FormData();
      f.append('data', new Blob(['png'], { type: 'image/png' }), 'a.png');
      return f;
    };
    const post = (auth: string) =>
      fetch(slot.url, { method: 'POST', body: form(), headers: { authorization: auth } });
    expect((await post(sandbox.token)).status).toBe(401);
    const up = (await (await post(b.token)).json()) as { photos: Record<string, { token: string }> };
    const token = Object.values(up.photos)[0]!.token;
    now += 1000;
    const image = { text: 'pic', attachments: [{ type: 'image', payload: { token } }] };
    expect((await raw(sandbox, 'POST', `/messages?user_id=${ann.user_id}`, image, b.token)).status).toBe(200);
    expect(await raw(sandbox, 'POST', `/messages?user_id=${ann.user_id}`, image)).toMatchObject({
      status: 400,
      body: { code: 'proto.payload' },
    });
  });

  it('limits each bot on its own: one at 30 requests a second does not make the other wait', async () => {
    let t = 1_000_000;
    const { sandbox, b } = await twoBots({ limits: { global: 30, perChat: 2, clock: () => t } });
    const statuses = await Promise.all(Array.from({ length: 31 }, () => raw(sandbox, 'GET', '/me')));
    expect(statuses.filter((r) => r.status === 200)).toHaveLength(30);
    expect(statuses.filter((r) => r.status === 429)).toHaveLength(1);
    expect((await raw(sandbox, 'GET', '/me', undefined, b.token)).status).toBe(200);
    // Each bot's request log is its own.
    expect(sandbox.requestLog.list()).toHaveLength(31);
    expect(sandbox.app.sandbox.bots.byId(b.id)!.log.list()).toHaveLength(1);
    t += 1000;
    expect((await raw(sandbox, 'GET', '/me')).status).toBe(200);
  });

  it('keeps the bots, their chats and their updates across a restart (tokens new unless given again)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-bots-'));
    dirs.push(dir);
    const dbPath = join(dir, 'state.db');
    const first = await start({
      dbPath,
      bots: [{ name: 'Shop' }, { name: 'Weather', token: 'given-weather' }],
    });
    const added = first.addBot({ name: 'News', username: 'daily_news_bot' });
    const before = first.bots();
    const weather = before[1]!;
    const ann = await first.control.createUser({ first_name: 'Ann' });
    await first.control.forBot(added.id).startBot(ann.user_id);
    await first.control.forBot(added.id).sendText(ann.user_id, 'dialog', 'news please');
    await first.close();
    open.splice(open.indexOf(first), 1);

    const second = await start({
      dbPath,
      bots: [{ name: 'Shop' }, { name: 'Weather', token: 'given-weather' }],
    });
    expect(second.bots()).toEqual(before);
    expect((await raw(second, 'GET', '/me', undefined, 'given-weather')).body).toMatchObject({
      user_id: weather.id,
    });
    const news = second.app.sandbox.bots.byId(added.id)!;
    expect(news.token).not.toBe(added.token);
    expect(second.tokenOf(added.id)).toBe(news.token);
    expect(() => second.tokenOf(1)).toThrow(/no bot 1/);
    expect((await raw(second, 'GET', '/me', undefined, added.token)).status).toBe(401);
    const polled = await updates(second, news.token);
    expect(polled.updates.map((u) => u.update_type)).toEqual(['bot_started', 'message_created']);
    const view = await second.control.forBot(added.id).view(ann.user_id);
    expect(view.messages.map((m) => m.text)).toEqual(['news please']);
    // Ann, a person of the whole sandbox, never started the default bot.
    expect((await second.control.view(ann.user_id)).messages).toEqual([]);
  });

  it('adds, lists and removes bots through the control API and its client', async () => {
    const shown = await start({ showToken: true, limits: false });
    const made = await shown.control.createBot({ name: 'Helper' });
    expect(made).toMatchObject({
      name: 'Helper',
      username: 'helper_bot',
      token: expect.stringMatching(/^sandbox-token-/),
    });
    expect((await raw(shown, 'GET', '/me', undefined, made.token)).body).toMatchObject({ user_id: made.id });
    const info = await shown.control.forBot(made.id).info();
    expect(info).toMatchObject({ bot: { user_id: made.id }, token: made.token });
    expect(await shown.control.createBot({ name: 'Helper' })).toMatchObject({ username: 'helper_bot2' });
    await expect(shown.control.createBot({ name: 'X', username: 'helper_bot' })).rejects.toMatchObject({
      status: 409,
    });
    await expect(shown.control.forBot(1).view(1)).rejects.toMatchObject({ status: 404 });
    expect(await shown.control.deleteBot(made.id)).toEqual({ success: true });
    expect((await raw(shown, 'GET', '/me', undefined, made.token)).status).toBe(401);
    await expect(shown.control.deleteBot(shown.bot.user_id)).rejects.toMatchObject({ status: 409 });

    // Without showToken (or with a given token) no token is handed out.
    const hidden = await start({ limits: false });
    const quiet = await hidden.control.createBot({ name: 'Quiet' });
    expect(quiet).toEqual({ id: quiet.id, name: 'Quiet', username: 'quiet_bot' });
    expect(await hidden.control.forBot(quiet.id).info()).not.toHaveProperty('token');
  });
});
