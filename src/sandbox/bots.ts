/**
 * The bots one sandbox hosts, as the platform hosts many: each has its own token, numeric id, name and
 * username, its own chats and messages (a person's dialog with bot A is another chat than their dialog
 * with bot B), its own uploads, webhook subscriptions, long-polling queue, commands, request log and rate
 * limits. The people (users) and the id counters are shared, so ids never repeat across bots. The first
 * bot is the default one: every single-bot API of the sandbox speaks of it.
 */
import type { PollQueue } from './delivery/poll-queue.ts';
import { badRequest, notFound, PlatformError } from './errors.ts';
import { generateBotToken } from './ids.ts';
import { type LimitOptions, RateLimiter } from './limits.ts';
import { type InitDataSigner, initDataSigner } from './mini-app.ts';
import type { Platform } from './platform.ts';
import { RequestLog } from './request-log.ts';
import { emptyData, type SandboxData } from './state.ts';

/** 409, as the control API answers a request that clashes with what exists. */
const conflict = (message: string) => new PlatformError(409, 'sandbox.conflict', message);

export type PollSnapshot = ReturnType<PollQueue['snapshot']>;

/** A bot as the sandbox lists it (never with its token). */
export interface BotIdentity {
  id: number;
  name: string;
  username: string;
}

/** What adding a bot takes: a name; a username (default made from the name); a token (default a fresh one). */
export interface NewBot {
  name: string;
  username?: string;
  token?: string;
}

/** One hosted bot and its parts. `token` is not enumerable. */
export interface SandboxBot {
  readonly token: string;
  /** The sandbox made the token (it may then be shown on loopback, see `showToken`); a given one never is. */
  readonly tokenMade: boolean;
  readonly platform: Platform;
  readonly limiter: RateLimiter | undefined;
  readonly log: RequestLog;
  readonly signInitData: InitDataSigner;
}

/** A bot other than the default one as saved with the state: its own data (people and counters are shared). */
export interface SavedBot {
  data: Omit<SandboxData, 'users' | 'counters'>;
  poll: PollSnapshot;
}

/** The default bot's numeric id; the others count up from it. */
export const DEFAULT_BOT_ID = 229_229_229;

export const identityOf = (bot: SandboxBot): BotIdentity => ({
  id: bot.platform.botId,
  name: bot.platform.data.bot.first_name,
  username: bot.platform.data.bot.username ?? '',
});

/** `Weather Bot` → `weather_bot`; `Shop` → `shop_bot`. */
export function usernameFrom(name: string): string {
  const base = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /bot$/.test(base) ? base : `${base || 'sandbox'}_bot`;
}

function checkName(input: NewBot): void {
  if (typeof input.name !== 'string' || !input.name.trim() || input.name.length > 64)
    throw badRequest('Field "name": a bot needs a name of 1..64 characters');
  if (input.username !== undefined && !/^[A-Za-z][A-Za-z0-9_]{2,63}$/.test(input.username))
    throw badRequest('Field "username": 3..64 characters of A-Z, a-z, 0-9 and _, starting with a letter');
}

/** The registry of hosted bots. */
export class SandboxBots {
  private readonly byIdMap = new Map<number, SandboxBot>();
  private readonly byTokenMap = new Map<string, SandboxBot>();
  /** Called after a bot is added or removed (the state is saved then). */
  onChange: () => void = () => {};

  constructor(
    /** Builds a bot's platform (hub, feed, settings) over its data, with its long-polling queue restored. */
    readonly make: (data: SandboxData, poll?: PollSnapshot) => Platform,
    private readonly limits: false | LimitOptions | undefined,
    private readonly defaultLimits: LimitOptions,
  ) {}

  /** The first bot: the one single-bot APIs speak of. */
  get default(): SandboxBot {
    const first = this.byIdMap.values().next().value;
    if (!first) throw notFound('The sandbox hosts no bot');
    return first;
  }

  byToken(token: unknown): SandboxBot | undefined {
    return typeof token === 'string' ? this.byTokenMap.get(token) : undefined;
  }

  byId(id: number): SandboxBot | undefined {
    return this.byIdMap.get(id);
  }

  all(): SandboxBot[] {
    return [...this.byIdMap.values()];
  }

  list(): BotIdentity[] {
    return this.all().map(identityOf);
  }

  /** Hosts a bot whose platform exists (the default bot, or one restored from the saved state). */
  attach(platform: Platform, token?: string): SandboxBot {
    const made = token === undefined;
    const own = token ?? generateBotToken();
    if (this.byTokenMap.has(own)) throw conflict('Another bot of this sandbox has this token');
    if (this.byIdMap.has(platform.botId)) throw conflict(`A bot with id ${platform.botId} exists`);
    const bot = {
      tokenMade: made,
      platform,
      limiter: this.limits === false ? undefined : new RateLimiter(this.limits ?? this.defaultLimits),
      log: new RequestLog(),
      signInitData: initDataSigner(own),
    };
    Object.defineProperty(bot, 'token', { value: own, enumerable: false });
    const hosted = bot as SandboxBot;
    platform.elsewhere = (id) => this.elsewhere(platform, id);
    if (this.byIdMap.size > 0) platform.origin = this.default.platform.origin;
    this.byIdMap.set(platform.botId, hosted);
    this.byTokenMap.set(own, hosted);
    return hosted;
  }

  /** Adds a new bot with its own empty world (people shared); returns it. */
  add(input: NewBot, now: number): SandboxBot {
    checkName(input);
    const username = input.username ?? this.freeUsername(usernameFrom(input.name));
    const taken = this.all().some(
      (b) => b.platform.data.bot.username?.toLowerCase() === username.toLowerCase(),
    );
    if (taken) throw conflict(`A bot with the username ${username} exists`);
    const shared = this.default.platform.data;
    const counters = shared.counters as typeof shared.counters & { bot?: number };
    let id: number;
    do {
      counters.bot = (counters.bot ?? 0) + 1;
      id = DEFAULT_BOT_ID + counters.bot;
    } while (this.byIdMap.has(id));
    const data = emptyData({
      user_id: id,
      first_name: input.name.trim(),
      username,
      description: 'A bot running in the botflow sandbox',
      is_bot: true,
      last_activity_time: now,
    });
    const bot = this.attach(
      this.make({ ...data, users: shared.users, counters: shared.counters }),
      input.token,
    );
    this.onChange();
    return bot;
  }

  /** Restores a saved bot (its token given again, or a fresh one). */
  restore(saved: SavedBot, token?: string): SandboxBot {
    const shared = this.default.platform.data;
    const data = { ...saved.data, users: shared.users, counters: shared.counters } as SandboxData;
    return this.attach(this.make(data, saved.poll), token);
  }

  /** Removes a bot (never the default one): its chats, updates and subscriptions go with it. */
  remove(id: number): void {
    const bot = this.byIdMap.get(id);
    if (!bot) throw notFound(`Bot ${id} not found`);
    if (bot === this.default) throw conflict('The default bot cannot be removed');
    this.byIdMap.delete(id);
    this.byTokenMap.delete(bot.token);
    bot.platform.hub.close();
    bot.platform.feed.close();
    this.onChange();
  }

  /** The bots other than the default one, as saved with the state. */
  saved(): SavedBot[] {
    return this.all()
      .slice(1)
      .map((b) => {
        const { users: _users, counters: _counters, ...own } = b.platform.data;
        return { data: own, poll: b.platform.hub.poll.snapshot() };
      });
  }

  close(): void {
    for (const b of this.all()) {
      b.platform.hub.close();
      b.platform.feed.close();
    }
  }

  private freeUsername(base: string): string {
    const taken = new Set(this.all().map((b) => b.platform.data.bot.username?.toLowerCase()));
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) if (!taken.has(`${base}${n}`)) return `${base}${n}`;
  }

  private elsewhere(self: Platform, id: number | string): boolean {
    return this.all().some(
      ({ platform: p }) =>
        p !== self && (typeof id === 'number' ? String(id) in p.data.chats : id in p.data.messages),
    );
  }
}
