/**
 * Where every update goes: to each webhook subscription that wants its type while any subscription
 * exists, otherwise to the long-polling queue. `bot_admin_permissions_changed` travels by webhook
 * only, as on the platform.
 */
import type { Logger } from 'pino';
import type { SubscriptionRecord } from '../state.ts';
import { PollQueue } from './poll-queue.ts';
import { WebhookDispatcher, type WebhookOptions } from './webhook.ts';

export type Update = Record<string, unknown> & { update_type: string; timestamp: number };

const WEBHOOK_ONLY = new Set(['bot_admin_permissions_changed']);

/** Routes updates to webhooks or long polling. */
export class UpdateHub {
  readonly poll = new PollQueue();
  readonly webhooks: WebhookDispatcher;
  private listeners = new Set<(u: Update) => void>();

  constructor(
    private readonly subscriptions: () => SubscriptionRecord[],
    webhookOptions: WebhookOptions,
    onGiveUp: (url: string) => void,
    logger?: Logger,
  ) {
    this.webhooks = new WebhookDispatcher(webhookOptions, onGiveUp, logger);
  }

  /** Hands an update to its transport. */
  publish(update: Update): void {
    const subs = this.subscriptions();
    if (subs.length > 0) {
      for (const s of subs) {
        if (s.update_types?.length && !s.update_types.includes(update.update_type)) continue;
        this.webhooks.enqueue(s.url, s.secret, update);
      }
    } else if (!WEBHOOK_ONLY.has(update.update_type)) {
      this.poll.push(update);
    }
    for (const l of this.listeners) l(update);
  }

  /** Observes every update produced, whatever its transport (tests, recording). */
  onUpdate(listener: (u: Update) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.poll.close();
    this.webhooks.close();
  }
}
