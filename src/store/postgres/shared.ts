/**
 * Many bots on one PostgreSQL database: a schema per bot, one pool and one LISTEN connection per process.
 *
 *   const shared = await openSharedPostgres({ url });
 *   const a = await openPostgres({ url, schema: 'bot_a', shared }); // migrated in schema bot_a
 *   const b = await openPostgres({ url, schema: 'bot_b', shared });
 *   …
 *   await shared.close();
 *
 * Each bot's database is a view of the one pool (`schemaPool`) whose `query` and `connect` hand out a
 * connection whose `search_path` is the bot's schema: a `SET search_path` is sent only when the connection
 * last served another schema (tracked per connection), so every statement of the store stays as it is.
 * The one LISTEN connection is opened when the first bot listens and ended when the last one stops; its
 * server process id is the process's `session` for every bot (leases.ts tells a dead process by it).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { BotflowError } from '../../errors/index.ts';

/** PostgreSQL's schema of a database opened without one (today's single bot). */
export const DEFAULT_SCHEMA = 'public';

/** The schema the deployment's catalog of bots lives in (bots-catalog-postgres.ts): no bot may take it. */
export const DEPLOYMENT_SCHEMA = 'botflow_deployment';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** `schema` when it can be a bot's schema; a clear error otherwise. */
export function checkSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema))
    throw new BotflowError(
      'BOTFLOW_POSTGRES_SCHEMA',
      `"${schema}" cannot be a bot's PostgreSQL schema: use 1 to 63 lowercase letters, digits and underscores, ` +
        'not starting with a digit',
    );
  if (schema.startsWith('pg_') || schema === 'information_schema' || schema === DEPLOYMENT_SCHEMA)
    throw new BotflowError(
      'BOTFLOW_POSTGRES_SCHEMA',
      `"${schema}" cannot be a bot's PostgreSQL schema: the name is reserved (pg_*, information_schema, ${DEPLOYMENT_SCHEMA})`,
    );
  return schema;
}

/** The notification channels of a schema's bot. */
export interface Channels {
  inbox: string;
  outbox: string;
  leases: string;
}

/**
 * The channel of `kind` for the bot in `schema`, as the SQL function `botflow_channel(kind)` computes it from
 * `current_schema()` (migrations/postgres/functions/channel.sql): `botflow_<kind>` in the default schema (as
 * before), `botflow_<kind>_<schema>` in another, `botflow_<kind>#<md5 of schema>` when that is over 63 bytes.
 */
export function channelOf(schema: string, kind: keyof Channels): string {
  if (schema === DEFAULT_SCHEMA) return `botflow_${kind}`;
  const named = `botflow_${kind}_${schema}`;
  if (named.length <= 63) return named;
  return `botflow_${kind}#${createHash('md5').update(schema).digest('hex')}`;
}

/** The three channels of the bot in `schema` (default: the default schema's, as before). */
export function channelsOf(schema: string = DEFAULT_SCHEMA): Channels {
  return {
    inbox: channelOf(schema, 'inbox'),
    outbox: channelOf(schema, 'outbox'),
    leases: channelOf(schema, 'leases'),
  };
}

/** A subscription on the process's LISTEN connection. */
export interface Listening {
  close(): Promise<void>;
  /** The LISTEN connection's server process id: the same for every bot of the process. */
  session: number;
}

/** One pool and one LISTEN connection for the whole process. */
export interface SharedPostgres {
  /** The pool itself: its connections' `search_path` is whichever schema they last served. */
  readonly pool: pg.Pool;
  /** The URL with the password masked. */
  readonly where: string;
  /** A view of the pool whose statements run in `schema` (created by `openPostgres`, not here). */
  schemaPool(schema: string): pg.Pool;
  /**
   * Hears `channels` on the process's one LISTEN connection (opened on the first call). `onEnd` when that
   * connection drops (every subscription ends with it: listen again). Undefined: could not connect.
   */
  listen(
    channels: readonly string[],
    onNotify: (channel: string, payload?: string) => void,
    onEnd: () => void,
  ): Promise<Listening | undefined>;
  /** Connections the pool holds and whether the LISTEN connection is open (for tests and reports). */
  stats(): { total: number; idle: number; listening: boolean };
  close(): Promise<void>;
}

/** Options of `openSharedPostgres`. */
export interface SharedPostgresOptions {
  /** `postgres://user:password@host:port/database` (the password never appears in a log or an error). */
  url: string;
  /** Connections in the one pool (default 10). */
  max?: number;
  /** `application_name` of the connections (default `botflow`). */
  applicationName?: string;
}

const BIGINT = 20;
const NUMERIC = 1700;
/** bigint columns hold ms times and ids, all well inside 2^53: read as numbers, not strings. */
export const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === BIGINT || oid === NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

/** A URL fit for logs and errors: the password is masked. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** A pool on `url` (ms-time columns read as numbers); throws a clear error when it cannot connect. */
export async function connectPool(url: string, max: number, applicationName = 'botflow'): Promise<pg.Pool> {
  const where = redactUrl(url);
  const pool = new pg.Pool({ connectionString: url, max, types, application_name: applicationName });
  // An idle client that loses its connection must not crash the process: the pool drops it.
  pool.on('error', () => {});
  const client = await pool.connect().catch(async (cause: Error) => {
    await pool.end().catch(() => {});
    throw new BotflowError(
      'BOTFLOW_POSTGRES_CONNECT',
      `cannot connect to PostgreSQL at ${where}: ${cause.message.replaceAll(url, where)}. ` +
        'Check that the server runs and the URL (database.url or BOTFLOW_DATABASE_URL) is right.',
    );
  });
  client.release();
  return pool;
}

/** Opens the process's pool (no LISTEN connection until a bot listens). */
export async function openSharedPostgres(options: SharedPostgresOptions): Promise<SharedPostgres> {
  const pool = await connectPool(options.url, options.max ?? 10, options.applicationName);
  return sharedOver(pool, redactUrl(options.url));
}

/** The shared pool's API over `pool` (which it ends on `close`). */
export function sharedOver(pool: pg.Pool, where: string): SharedPostgres {
  const served = new WeakMap<pg.PoolClient, string>();
  const views = new Map<string, pg.Pool>();
  const listener = listenerOn(pool);
  return {
    pool,
    where,
    schemaPool(schema) {
      const known = views.get(schema);
      if (known) return known;
      const view = schemaView(pool, checkOrDefault(schema), served);
      views.set(schema, view);
      return view;
    },
    listen: listener.listen,
    stats: () => ({ total: pool.totalCount, idle: pool.idleCount, listening: listener.open() }),
    async close() {
      await listener.end();
      if (!pool.ended) await pool.end();
    },
  };
}

const checkOrDefault = (schema: string) => (schema === DEFAULT_SCHEMA ? schema : checkSchema(schema));

/**
 * A `pg.Pool` for the callers (`query`, `connect`, `options`, counts) whose connections are in `schema`.
 * A failed query releases its connection with the error, as pg's own `pool.query` does.
 */
function schemaView(pool: pg.Pool, schema: string, served: WeakMap<pg.PoolClient, string>): pg.Pool {
  async function connect(): Promise<pg.PoolClient> {
    const client = await pool.connect();
    if (served.get(client) === schema) return client;
    try {
      await client.query(`SET search_path TO "${schema}"`);
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    served.set(client, schema);
    return client;
  }
  async function query(...args: unknown[]): Promise<unknown> {
    const client = await connect();
    try {
      const result = await (client.query as (...a: unknown[]) => Promise<unknown>)(...args);
      client.release();
      return result;
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
  }
  const view = {
    connect,
    query,
    schema,
    get options() {
      return pool.options;
    },
    get totalCount() {
      return pool.totalCount;
    },
    get idleCount() {
      return pool.idleCount;
    },
    get waitingCount() {
      return pool.waitingCount;
    },
    get ended() {
      return pool.ended;
    },
    on: () => view,
    // The pool is the process's: a bot's database closing leaves it to the others.
    end: async () => {},
  };
  return view as unknown as pg.Pool;
}

interface Subscriber {
  channels: readonly string[];
  onNotify: (channel: string, payload?: string) => void;
  onEnd: () => void;
}

/** An open LISTEN connection, its subscribers and the channels the server has it listening to. */
interface Connection {
  client: pg.Client;
  session: number;
  subscribers: Set<Subscriber>;
  listened: Set<string>;
  /** LISTEN and UNLISTEN one after another, each deciding on the subscribers as they are when it runs. */
  serial(run: () => Promise<unknown>): Promise<unknown>;
}

/** The one LISTEN connection: subscriptions multiplexed by channel; ended when the last one closes. */
function listenerOn(pool: pg.Pool) {
  let connection: Promise<Connection | undefined> | undefined;
  let closed = false;

  function open(): Promise<Connection | undefined> {
    const connectionString = (pool.options as { connectionString?: string }).connectionString;
    const client = new pg.Client({ connectionString, application_name: 'botflow_listen' });
    client.on('error', () => {});
    const subscribers = new Set<Subscriber>();
    let chain: Promise<unknown> = Promise.resolve();
    const started = (async (): Promise<Connection | undefined> => {
      try {
        await client.connect();
        const { rows } = await client.query<{ session: number }>('SELECT pg_backend_pid() AS session');
        const serial = (run: () => Promise<unknown>) => {
          const next = chain.then(run, run);
          chain = next.catch(() => {});
          return next;
        };
        return { client, session: rows[0]!.session, subscribers, listened: new Set(), serial };
      } catch {
        await client.end().catch(() => {});
        return undefined;
      }
    })();
    client.on('end', () => {
      if (connection === started) connection = undefined;
      const ended = [...subscribers];
      subscribers.clear();
      for (const s of ended) s.onEnd();
    });
    client.on('notification', (message) => {
      for (const s of [...subscribers])
        if (s.channels.includes(message.channel)) s.onNotify(message.channel, message.payload);
    });
    return started;
  }

  /** Has the server listen to exactly the channels `c`'s subscribers hear, among `channels`. */
  function settle(c: Connection, channels: readonly string[]): Promise<unknown> {
    return c.serial(async () => {
      const wanted = (name: string) => [...c.subscribers].some((s) => s.channels.includes(name));
      const add = channels.filter((name) => wanted(name) && !c.listened.has(name));
      const drop = channels.filter((name) => !wanted(name) && c.listened.has(name));
      const statements = [...add.map((n) => `LISTEN "${n}"`), ...drop.map((n) => `UNLISTEN "${n}"`)];
      if (statements.length === 0) return;
      await c.client.query(statements.join('; '));
      for (const name of add) c.listened.add(name);
      for (const name of drop) c.listened.delete(name);
    });
  }

  async function listen(
    channels: readonly string[],
    onNotify: Subscriber['onNotify'],
    onEnd: () => void,
  ): Promise<Listening | undefined> {
    if (closed) return undefined;
    connection ??= open();
    const mine = connection;
    const c = await mine;
    if (!c) {
      if (connection === mine) connection = undefined;
      return undefined;
    }
    // Its last subscriber closed it meanwhile: listen on the next one.
    if (connection !== mine) return listen(channels, onNotify, onEnd);
    const subscriber: Subscriber = { channels: [...channels], onNotify, onEnd };
    c.subscribers.add(subscriber);
    try {
      await settle(c, subscriber.channels);
    } catch {
      c.subscribers.delete(subscriber);
      return undefined;
    }
    return {
      session: c.session,
      async close() {
        if (!c.subscribers.delete(subscriber)) return;
        if (c.subscribers.size > 0) return void (await settle(c, subscriber.channels).catch(() => {}));
        if (connection === mine) connection = undefined;
        await c.client.end().catch(() => {});
      },
    };
  }

  return {
    listen,
    open: () => connection !== undefined,
    async end() {
      closed = true;
      const current = connection;
      connection = undefined;
      const c = await current;
      c?.subscribers.clear();
      await c?.client.end().catch(() => {});
    },
  };
}

/**
 * Drops a bot's schema and everything in it (DROP SCHEMA … CASCADE): its data removed on purpose. Takes the
 * process's shared pool or a URL. The default schema is never dropped this way. Its connections that last
 * served the schema find it gone: open the bot again to create it afresh.
 */
export async function dropPostgresSchema(target: SharedPostgres | string, schema: string): Promise<void> {
  if (checkSchema(schema) === DEFAULT_SCHEMA)
    throw new BotflowError(
      'BOTFLOW_POSTGRES_SCHEMA',
      "the default schema (public) is not dropped as a bot's schema",
    );
  const pool = typeof target === 'string' ? await connectPool(target, 1) : target.pool;
  try {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    if (typeof target === 'string') await pool.end();
  }
}
