/**
 * The deployment's catalog of bots (issue 39): which bots a deployment serves, changed while it runs
 * (`botflow bots add|remove|pause`). A bot's record names where its token comes from, never the token. A
 * removed bot keeps its record (with the time) and its data (its schema or file) until dropped on purpose.
 * Every change bumps `version()`, so that a running process polls it cheaply (PostgreSQL also announces it
 * on `botflow_bots`). Adapters: SQLite (`openSqliteBotsCatalog`, src/store/bots-catalog.ts) and PostgreSQL
 * (`openPostgresBotsCatalog`, src/store/postgres/bots-catalog.ts), both over `catalogOver` below.
 */
import { BotflowError } from '../../errors/index.ts';
import { wallNow } from './wall-time.ts';

/** One bot of the deployment. */
export interface BotRecord {
  /** Its name: its schema (PostgreSQL) and file (SQLite) are named after it. `^[a-z_][a-z0-9_]{0,62}$`. */
  name: string;
  /** The opaque part of its webhook path (`/webhook/<alias>`): never the token. */
  alias: string;
  /** Its numeric id (`/me`: a token does not contain it). */
  botId?: number;
  username?: string;
  /** Where its token is read from: a file, or an environment variable. */
  tokenFile?: string;
  tokenEnv?: string;
  paused: boolean;
  pausedReason?: string;
  /** When it was added (ms since the epoch). */
  addedAt: number;
  /** When it was removed: it is no longer served, its data is kept. */
  removedAt?: number;
  /**
   * A digest of the webhook subscription the deployment last made for it (its URL, secret and update
   * types): a restart keeps a cold bot's subscription without asking the platform again.
   */
  subscription?: string;
  /**
   * When a deployment must start the cold bot (ms): its next timer, task or campaign send when it was
   * stopped idle; the time it started while it runs (a process that dies meanwhile starts it at once).
   */
  wakeAt?: number;
}

/** A bot to add: `paused` defaults to false, `addedAt` to now. */
export type NewBot = Omit<BotRecord, 'paused' | 'addedAt' | 'removedAt'> & {
  paused?: boolean;
  addedAt?: number;
};

/** A change to a bot: a field given is set (null clears an optional one); `paused: false` clears the reason. */
export type BotPatch = {
  [K in
    | 'alias'
    | 'botId'
    | 'username'
    | 'tokenFile'
    | 'tokenEnv'
    | 'paused'
    | 'pausedReason'
    | 'subscription'
    | 'wakeAt']?: BotRecord[K] | (undefined extends BotRecord[K] ? null : never);
};

/** The catalog's port. */
export interface BotsCatalog {
  /** Every bot, removed ones too (with `removedAt`), by name. */
  list(): Promise<BotRecord[]>;
  /** The bot `name` (removed or not); undefined when the catalog never had it. */
  get(name: string): Promise<BotRecord | undefined>;
  /**
   * Adds a bot. Refuses a name or alias a served bot has (BOTFLOW_BOTS_CATALOG); a removed bot's name is
   * added again over its record (its kept data is its again).
   */
  add(bot: NewBot): Promise<BotRecord>;
  /** Changes a served bot (BOTFLOW_BOTS_CATALOG: unknown or removed, or an alias taken). */
  update(name: string, patch: BotPatch): Promise<BotRecord>;
  /** Marks the bot removed at `at` (default now); its data is kept. Removing a removed bot changes nothing. */
  remove(name: string, at?: number): Promise<BotRecord>;
  /** A number bumped by every change. */
  version(): Promise<number>;
  close(): Promise<void>;
}

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const ALIAS = /^[A-Za-z0-9_-]{1,64}$/;

const refused = (message: string) => new BotflowError('BOTFLOW_BOTS_CATALOG', message);

/** `bot` when its name and alias are fit; a clear error otherwise. */
export function checkBot(bot: Pick<BotRecord, 'name' | 'alias'>): void {
  if (!NAME.test(bot.name))
    throw refused(
      `"${bot.name}" cannot be a bot's name: 1 to 63 lowercase letters, digits and underscores, not starting with a digit`,
    );
  if (!ALIAS.test(bot.alias))
    throw refused(
      `bot ${bot.name}: its alias must be 1 to 64 letters, digits, "-" or "_" (it goes in a URL)`,
    );
}

/** Rows as both adapters store them (snake_case columns). */
export interface BotRow {
  name: string;
  alias: string;
  bot_id: number | null;
  username: string | null;
  token_file: string | null;
  token_env: string | null;
  paused: number | boolean;
  paused_reason: string | null;
  added_at: number;
  removed_at: number | null;
  subscription: string | null;
  wake_at: number | null;
}

/** The columns in order, for the adapters' statements. */
export const BOT_COLUMNS =
  'name, alias, bot_id, username, token_file, token_env, paused, paused_reason, added_at, removed_at, subscription, wake_at';

export function recordOf(row: BotRow): BotRecord {
  return {
    name: row.name,
    alias: row.alias,
    ...(row.bot_id !== null ? { botId: Number(row.bot_id) } : {}),
    ...(row.username !== null ? { username: row.username } : {}),
    ...(row.token_file !== null ? { tokenFile: row.token_file } : {}),
    ...(row.token_env !== null ? { tokenEnv: row.token_env } : {}),
    paused: Boolean(row.paused),
    ...(row.paused_reason !== null ? { pausedReason: row.paused_reason } : {}),
    addedAt: Number(row.added_at),
    ...(row.removed_at !== null ? { removedAt: Number(row.removed_at) } : {}),
    ...(row.subscription !== null && row.subscription !== undefined
      ? { subscription: row.subscription }
      : {}),
    ...(row.wake_at !== null && row.wake_at !== undefined ? { wakeAt: Number(row.wake_at) } : {}),
  };
}

/** The values of `record` in `BOT_COLUMNS` order (`paused` as the adapter stores booleans). */
export function valuesOf(record: BotRecord, bool: (b: boolean) => unknown): unknown[] {
  return [
    record.name,
    record.alias,
    record.botId ?? null,
    record.username ?? null,
    record.tokenFile ?? null,
    record.tokenEnv ?? null,
    bool(record.paused),
    record.pausedReason ?? null,
    record.addedAt,
    record.removedAt ?? null,
    record.subscription ?? null,
    record.wakeAt ?? null,
  ];
}

/** Statements with `?` placeholders, and a transaction that serializes every change (version bumped first). */
export interface CatalogSql {
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs `work` in a transaction after bumping the version (which serializes changes); returns its result. */
  change<T>(work: (sql: Pick<CatalogSql, 'all'>) => Promise<T>): Promise<T>;
  /** `paused` as stored. */
  bool(value: boolean): unknown;
  /** The tables' names (qualified on PostgreSQL). */
  bots: string;
  meta: string;
  close(): Promise<void>;
}

/** The catalog's logic over an adapter's statements. */
export function catalogOver(db: CatalogSql): BotsCatalog {
  const one = async (q: Pick<CatalogSql, 'all'>, name: string) =>
    (await q.all<BotRow>(`SELECT ${BOT_COLUMNS} FROM ${db.bots} WHERE name = ?`, [name])).map(recordOf)[0];
  const aliasTaken = async (q: Pick<CatalogSql, 'all'>, alias: string, name: string) =>
    (
      await q.all<BotRow>(
        `SELECT ${BOT_COLUMNS} FROM ${db.bots} WHERE alias = ? AND removed_at IS NULL AND name <> ?`,
        [alias, name],
      )
    ).map(recordOf)[0];
  const write = (q: Pick<CatalogSql, 'all'>, record: BotRecord) =>
    q.all(
      `INSERT INTO ${db.bots} (${BOT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET ` +
        'alias = excluded.alias, bot_id = excluded.bot_id, username = excluded.username, ' +
        'token_file = excluded.token_file, token_env = excluded.token_env, paused = excluded.paused, ' +
        'paused_reason = excluded.paused_reason, added_at = excluded.added_at, removed_at = excluded.removed_at, ' +
        'subscription = excluded.subscription, wake_at = excluded.wake_at',
      valuesOf(record, db.bool),
    );
  return {
    async list() {
      return (await db.all<BotRow>(`SELECT ${BOT_COLUMNS} FROM ${db.bots} ORDER BY name`)).map(recordOf);
    },
    get: (name) => one(db, name),
    async add(bot) {
      checkBot(bot);
      return db.change(async (q) => {
        const known = await one(q, bot.name);
        if (known && known.removedAt === undefined)
          throw refused(`a bot named ${bot.name} is already in the catalog`);
        const other = await aliasTaken(q, bot.alias, bot.name);
        if (other) throw refused(`the alias of bot ${bot.name} is already bot ${other.name}'s`);
        const record: BotRecord = withoutUndefined({
          ...bot,
          paused: bot.paused ?? false,
          addedAt: bot.addedAt ?? wallNow(),
        });
        await write(q, record);
        return record;
      });
    },
    update(name, patch) {
      return db.change(async (q) => {
        const known = await one(q, name);
        if (!known || known.removedAt !== undefined)
          throw refused(`no bot named ${name} is served (bots list shows the catalog)`);
        const next = patched(known, patch);
        checkBot(next);
        if (next.alias !== known.alias) {
          const other = await aliasTaken(q, next.alias, name);
          if (other) throw refused(`the alias of bot ${name} is already bot ${other.name}'s`);
        }
        await write(q, next);
        return next;
      });
    },
    remove(name, at = wallNow()) {
      return db.change(async (q) => {
        const known = await one(q, name);
        if (!known) throw refused(`no bot named ${name} is in the catalog`);
        if (known.removedAt !== undefined) return known;
        const next = { ...known, removedAt: at };
        await write(q, next);
        return next;
      });
    },
    async version() {
      const rows = await db.all<{ version: number }>(`SELECT version FROM ${db.meta}`);
      return Number(rows[0]?.version ?? 0);
    },
    close: () => db.close(),
  };
}

function patched(record: BotRecord, patch: BotPatch): BotRecord {
  const next: Record<string, unknown> = { ...record };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete next[key];
    else next[key] = value;
  }
  if (patch.paused === false && patch.pausedReason === undefined) delete next.pausedReason;
  return next as unknown as BotRecord;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
