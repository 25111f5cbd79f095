/**
 * Cold webhook bots (issue 39, docs/bots.md "What an idle bot costs"): when a warm bot has nothing to do
 * (`quiet`), the deployment stops its app and keeps only what it needs to warm it again: its record, its
 * alias, its secret's digest, and its next wake-up (`nextWakeUp`: the earliest armed timer, pending task or
 * campaign send of its database). One timer (`WakeUps`) serves every cold bot: it is armed for the earliest
 * wake-up and warms the bots whose time came.
 */
import type { Logger } from 'pino';
import type { Engine } from '../engine/engine.ts';
import { wallNow } from '../store/ports/wall-time.ts';

/** True when the engine has nothing to do now: no event waiting or handled, no call, task or commit in flight, an empty outbox. */
export async function quiet(engine: Engine<boolean>): Promise<boolean> {
  if (engine.busy()) return false;
  const { partitions } = engine.role();
  if ((await engine.store.pendingCount(partitions)) > 0) return false;
  const backlog = await engine.store.campaigns.outboxBacklog();
  if (backlog.interactive + backlog.bulk > 0) return false;
  const at = await nextWakeUp(engine);
  return at === undefined || at > wallNow();
}

/** The earliest time the bot has work of its own: an armed timer, a pending task, a running campaign's next send. */
export async function nextWakeUp(engine: Engine<boolean>): Promise<number | undefined> {
  const { partitions, member } = engine.role();
  const store = engine.store;
  const times: (number | undefined)[] = [
    await store.nextTimerAt(partitions),
    await store.taskPort(member).nextRunAfter(partitions),
  ];
  for (const campaign of await store.campaigns.list()) {
    if (campaign.status !== 'running') continue;
    const queued = await store.campaigns.queued(campaign.id);
    if (queued.n > 0) times.push(queued.nextAt ?? wallNow());
  }
  const known = times.filter((at): at is number => at !== undefined);
  return known.length === 0 ? undefined : Math.min(...known);
}

/**
 * One timer for every cold bot: `set(name, at)` records a bot's wake-up (undefined: none), `wake` is called
 * with each bot whose time came (`leadMs` early, so that its app is up when its timer is due).
 */
export class WakeUps {
  private readonly due = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Number.POSITIVE_INFINITY;

  constructor(
    private readonly wake: (name: string) => void,
    private readonly leadMs = 1000,
  ) {}

  set(name: string, at: number | undefined): void {
    if (at === undefined) this.due.delete(name);
    else this.due.set(name, at - this.leadMs);
    this.arm();
  }

  /** The recorded wake-up of `name` (minus the lead), for tests and `bots()`. */
  get(name: string): number | undefined {
    return this.due.get(name);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    this.due.clear();
  }

  private arm(): void {
    let earliest = Number.POSITIVE_INFINITY;
    for (const at of this.due.values()) earliest = Math.min(earliest, at);
    if (earliest === this.armedFor) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = earliest;
    if (earliest === Number.POSITIVE_INFINITY) return;
    // setTimeout holds at most ~24.8 days: a later wake-up re-arms when this one fires.
    const delay = Math.min(Math.max(0, earliest - wallNow()), 2 ** 31 - 1);
    this.timer = setTimeout(() => this.fire(), delay);
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    const now = wallNow();
    for (const [name, at] of [...this.due]) {
      if (at > now) continue;
      this.due.delete(name);
      this.wake(name);
    }
    this.arm();
  }
}

/** A pool of `limit` at a time. */
export function limiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

/** Runs `task` every `ms` (one at a time; none for `Infinity`), not keeping the process alive. */
export function every(
  ms: number,
  task: () => Promise<void>,
  logger: Pick<Logger, 'warn'>,
): NodeJS.Timeout | undefined {
  if (!Number.isFinite(ms)) return undefined;
  let running = false;
  const timer = setInterval(
    () => {
      if (running) return;
      running = true;
      task()
        .catch((error: unknown) => logger.warn({ err: error }, 'idle bots could not be looked at'))
        .finally(() => {
          running = false;
        });
    },
    Math.max(ms, 10),
  );
  timer.unref();
  return timer;
}
