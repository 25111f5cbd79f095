/**
 * Webhook delivery: each update is one POST of JSON to the subscribed URL, with
 * `X-Svc-Bot-Api-Secret` when the subscription has a secret. The receiver must answer 200 within the
 * timeout; failures are retried with growing delays, in order, and a subscription that keeps failing
 * for `giveUpMs` is dropped, as the platform does.
 */

import type { Logger } from 'pino';
import { request } from 'undici';

type Update = Record<string, unknown> & { update_type: string };

/** Tunables of webhook delivery. */
export interface WebhookOptions {
  /** Time the receiver has to answer 200 (platform: 30 s). */
  timeoutMs: number;
  /** Delay before the first retry; each further retry doubles it up to `maxRetryDelayMs`. */
  firstRetryDelayMs: number;
  maxRetryDelayMs: number;
  /** A subscription failing for this long is dropped (platform: 8 hours). */
  giveUpMs: number;
}

export const DEFAULT_WEBHOOK_OPTIONS: WebhookOptions = {
  timeoutMs: 30_000,
  firstRetryDelayMs: 1_000,
  maxRetryDelayMs: 60_000,
  giveUpMs: 8 * 3600_000,
};

/** One delivery attempt, for tests and the web page. */
export interface DeliveryAttempt {
  url: string;
  update_type: string;
  attempt: number;
  /** HTTP status answered, or absent when the request failed. */
  status?: number;
  error?: string;
  ok: boolean;
  time: number;
  /** After a failure: the delay before the next attempt (absent when the subscription was dropped). */
  retry_in_ms?: number;
}

interface Target {
  url: string;
  secret?: string;
  queue: Update[];
  running: boolean;
  stopped: boolean;
  timer?: NodeJS.Timeout;
  wake?: () => void;
}

/** Delivers updates to webhook subscriptions, one ordered queue per URL. */
export class WebhookDispatcher {
  private targets = new Map<string, Target>();
  /** Every delivery attempt, newest last (bounded). */
  readonly attempts: DeliveryAttempt[] = [];

  constructor(
    private readonly options: WebhookOptions,
    private readonly onGiveUp: (url: string) => void,
    private readonly logger?: Logger,
  ) {}

  /** Queues `update` for the subscription at `url` (secret as subscribed). */
  enqueue(url: string, secret: string | undefined, update: Update): void {
    let t = this.targets.get(url);
    if (!t) {
      t = { url, secret, queue: [], running: false, stopped: false };
      this.targets.set(url, t);
    }
    t.secret = secret;
    t.queue.push(update);
    if (!t.running) void this.run(t);
  }

  /** Stops delivering to `url` and forgets its queue (unsubscribe). */
  remove(url: string): void {
    const t = this.targets.get(url);
    if (!t) return;
    t.stopped = true;
    if (t.timer) clearTimeout(t.timer);
    t.wake?.();
    this.targets.delete(url);
  }

  /** Number of updates not delivered yet, per URL. */
  backlog(): Record<string, number> {
    return Object.fromEntries([...this.targets].map(([url, t]) => [url, t.queue.length]));
  }

  /** Stops every delivery (sandbox shutdown). */
  close(): void {
    for (const url of [...this.targets.keys()]) this.remove(url);
  }

  private async run(t: Target): Promise<void> {
    t.running = true;
    let failingSince: number | undefined;
    let delay = this.options.firstRetryDelayMs;
    let attempt = 0;
    while (!t.stopped && t.queue.length > 0) {
      const update = t.queue[0]!;
      attempt++;
      const record = await this.deliver(t, update, attempt);
      const ok = record.ok;
      if (t.stopped) break;
      if (ok) {
        t.queue.shift();
        failingSince = undefined;
        delay = this.options.firstRetryDelayMs;
        attempt = 0;
        continue;
      }
      failingSince ??= Date.now();
      if (Date.now() - failingSince >= this.options.giveUpMs) {
        this.logger?.warn({ url: t.url }, 'webhook kept failing: subscription dropped');
        this.remove(t.url);
        this.onGiveUp(t.url);
        break;
      }
      record.retry_in_ms = delay;
      await new Promise<void>((resolve) => {
        t.wake = resolve;
        t.timer = setTimeout(resolve, delay);
      });
      delay = Math.min(delay * 2, this.options.maxRetryDelayMs);
    }
    t.running = false;
  }

  private async deliver(t: Target, update: Update, attempt: number): Promise<DeliveryAttempt> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (t.secret) {
      headers['x-svc-bot-api-secret'] = t.secret;
      headers['x-max-bot-api-secret'] = t.secret;
    }
    const record: DeliveryAttempt = {
      url: t.url,
      update_type: update.update_type,
      attempt,
      ok: false,
      time: Date.now(),
    };
    try {
      const res = await request(t.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(update),
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
      await res.body.dump();
      record.status = res.statusCode;
      record.ok = res.statusCode === 200;
    } catch (err) {
      record.error = (err as Error).message;
    }
    this.attempts.push(record);
    if (this.attempts.length > 5000) this.attempts.splice(0, 1000);
    if (!record.ok)
      this.logger?.debug({ url: t.url, attempt, status: record.status }, 'webhook delivery failed');
    return record;
  }
}
