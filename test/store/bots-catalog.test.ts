// The deployment's catalog of bots (issue 39), one test body over both adapters: SQLite's bots.db and
// PostgreSQL's botflow_deployment schema. Then a file per bot on SQLite.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteBotsCatalog, sqliteBotPath, sqliteCatalogPath } from '../../src/store/bots-catalog.ts';
import { openDatabase } from '../../src/store/database.ts';
import type { BotsCatalog } from '../../src/store/ports/bots-catalog.ts';
import { BOTS_CHANNEL, openPostgresBotsCatalog } from '../../src/store/postgres/bots-catalog.ts';
import { openSharedPostgres, type SharedPostgres } from '../../src/store/postgres/database.ts';
import { eventually } from '../support/eventually.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.ts';

const up = await postgresAvailable();
const dir = mkdtempSync(join(tmpdir(), 'botflow-catalog-'));
let db: TestDatabase | undefined;
let shared: SharedPostgres | undefined;
afterAll(async () => {
  await shared?.close();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const adapters: [string, () => Promise<BotsCatalog>][] = [
  ['sqlite', async () => openSqliteBotsCatalog(sqliteCatalogPath(join(dir, 'deployment')))],
];
if (up)
  adapters.push([
    'postgres',
    async () => {
      db ??= await freshDatabase();
      shared ??= await openSharedPostgres({ url: db.url, max: 2 });
      return openPostgresBotsCatalog(shared);
    },
  ]);

describe.each(adapters)("the deployment's catalog of bots on %s", (_kind, open) => {
  it('adds, lists, pauses, removes and adds again, bumping its version on every change', async () => {
    const catalog = await open();
    try {
      expect(await catalog.list()).toEqual([]);
      const v0 = await catalog.version();
      const shop = await catalog.add({ name: 'shop', alias: 'a1b2', tokenEnv: 'SHOP_TOKEN', addedAt: 1000 });
      expect(shop).toEqual({
        name: 'shop',
        alias: 'a1b2',
        tokenEnv: 'SHOP_TOKEN',
        paused: false,
        addedAt: 1000,
      });
      await catalog.add({
        name: 'city',
        alias: 'c3d4',
        tokenFile: '/run/secrets/city',
        botId: 42,
        username: 'city_bot',
      });
      expect(await catalog.version()).toBe(v0 + 2);
      expect((await catalog.list()).map((b) => b.name)).toEqual(['city', 'shop']);
      expect(await catalog.get('city')).toMatchObject({ botId: 42, username: 'city_bot', paused: false });
      expect(await catalog.get('nobody')).toBeUndefined();

      const paused = await catalog.update('shop', { paused: true, pausedReason: 'token revoked (401)' });
      expect(paused).toMatchObject({ paused: true, pausedReason: 'token revoked (401)' });
      expect(await catalog.get('shop')).toEqual(paused);
      const resumed = await catalog.update('shop', { paused: false, tokenEnv: null, tokenFile: '/t' });
      expect(resumed).toEqual({ name: 'shop', alias: 'a1b2', tokenFile: '/t', paused: false, addedAt: 1000 });
      expect(await catalog.version()).toBe(v0 + 4);

      const removed = await catalog.remove('shop', 5000);
      expect(removed).toMatchObject({ name: 'shop', removedAt: 5000 });
      expect(await catalog.remove('shop', 6000)).toEqual(removed);
      await expect(catalog.update('shop', { paused: true })).rejects.toMatchObject({
        code: 'BOTFLOW_BOTS_CATALOG',
      });
      // A removed bot's alias is free; its name is added again over its record (its data kept is its again).
      await catalog.add({ name: 'other', alias: 'a1b2' });
      const again = await catalog.add({ name: 'shop', alias: 'e5f6', addedAt: 7000 });
      expect(again).toEqual({ name: 'shop', alias: 'e5f6', paused: false, addedAt: 7000 });
      expect((await catalog.list()).map((b) => [b.name, b.removedAt])).toEqual([
        ['city', undefined],
        ['other', undefined],
        ['shop', undefined],
      ]);
    } finally {
      await catalog.close();
    }
  });

  it('refuses a name or alias taken, a bad name or alias, and an unknown bot, changing nothing', async () => {
    const catalog = await open();
    try {
      const before = await catalog.version();
      const list = await catalog.list();
      const refused = { code: 'BOTFLOW_BOTS_CATALOG' };
      await expect(catalog.add({ name: 'city', alias: 'zz' })).rejects.toMatchObject(refused);
      await expect(catalog.add({ name: 'new', alias: 'c3d4' })).rejects.toThrow(/already bot city's/);
      await expect(catalog.add({ name: 'Bad-Name', alias: 'x' })).rejects.toMatchObject(refused);
      await expect(catalog.add({ name: 'fine', alias: 'has/slash' })).rejects.toMatchObject(refused);
      await expect(catalog.update('city', { alias: 'e5f6' })).rejects.toThrow(/already bot shop's/);
      await expect(catalog.update('ghost', { paused: true })).rejects.toMatchObject(refused);
      await expect(catalog.remove('ghost')).rejects.toMatchObject(refused);
      expect(await catalog.version()).toBe(before);
      expect(await catalog.list()).toEqual(list);
    } finally {
      await catalog.close();
    }
  });

  it('serializes changes made at once: one of two adds of the same alias wins', async () => {
    const [one, two] = [await open(), await open()];
    try {
      const results = await Promise.allSettled([
        one.add({ name: 'race_a', alias: 'race' }),
        two.add({ name: 'race_b', alias: 'race' }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect((await one.list()).filter((b) => b.alias === 'race')).toHaveLength(1);
    } finally {
      await one.close();
      await two.close();
    }
  });
});

describe.skipIf(!up)('the catalog on PostgreSQL', () => {
  it('announces each change on botflow_bots with the new version', async () => {
    const catalog = await openPostgresBotsCatalog(shared!);
    const heard: string[] = [];
    const listening = await shared!.listen(
      [BOTS_CHANNEL],
      (_c, payload) => heard.push(payload ?? ''),
      () => {},
    );
    try {
      await catalog.update('city', { paused: true });
      const version = await catalog.version();
      await eventually('the change to be heard', () => heard.includes(String(version)));
    } finally {
      await listening?.close();
    }
  });
});

describe('a file per bot on SQLite', () => {
  it('puts each bot in its own file under bots/, independent of the others', () => {
    const data = join(dir, 'data');
    expect(sqliteBotPath(data, 'shop')).toBe(join(data, 'bots', 'shop.db'));
    expect(() => sqliteBotPath(data, '../etc')).toThrow(/cannot be a bot's name/);
    // The runtime makes the folder, as it makes a single bot's.
    mkdirSync(join(data, 'bots'), { recursive: true });
    const [a, b] = ['shop', 'city'].map((name) => openDatabase({ path: sqliteBotPath(data, name) }));
    a!.prepare("INSERT INTO kv (key, value, updated_at) VALUES ('k', 'shop', 1)").run();
    expect(b!.prepare("SELECT value FROM kv WHERE key = 'k'").get()).toBeUndefined();
    expect(a!.prepare("SELECT value FROM kv WHERE key = 'k'").get()).toEqual({ value: 'shop' });
    a!.close();
    b!.close();
  });
});
