/**
 * Webhook subscription management: make sure the bot's subscription exists with the right update types
 * (webhook mode calls this at start), and list or remove subscriptions (the `botflow webhook` command).
 */
import type { BotApi } from '../client/client.ts';
import type { Subscription } from '../client/schemas/index.ts';
import { BotflowError } from '../errors/index.ts';

/** The platform answered a subscription call with `success: false`. */
export class SubscriptionError extends BotflowError {
  override name = 'SubscriptionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_SUBSCRIPTION_FAILED', message, options);
  }
}

/** The subscription the bot needs. */
export interface SubscriptionSpec {
  /** The public HTTPS address the platform posts updates to. */
  url: string;
  /** Sent back in `X-Svc-Bot-Api-Secret` with every delivery (5..256 characters of A-Z a-z 0-9 _ -). */
  secret?: string;
  /** Update types to receive; absent or empty: all types. */
  types?: readonly string[];
}

/** What `ensureSubscription` did. */
export interface EnsureResult {
  /** `created`: there was none for this URL; `updated`: re-sent (types or secret); `unchanged`: nothing to do. */
  action: 'created' | 'updated' | 'unchanged';
  /** Subscriptions for other URLs: they receive the same updates, which is usually a mistake. */
  others: Subscription[];
}

type SubscriptionApi = Pick<BotApi, 'getSubscriptions' | 'subscribe' | 'unsubscribe'>;

function coversTypes(existing: Subscription, wanted: readonly string[] | undefined): boolean {
  const have = existing.update_types ?? [];
  if (!wanted?.length) return have.length === 0; // all types wanted: only an unfiltered subscription gives them
  if (have.length === 0) return true;
  return wanted.every((t) => have.includes(t)) && have.every((t) => wanted.includes(t));
}

function checkSuccess(result: unknown, what: string): void {
  const r = result as { success?: boolean; message?: string | null } | undefined;
  if (r && r.success === false) {
    throw new SubscriptionError(`${what} was refused by the platform: ${r.message ?? 'no reason given'}`);
  }
}

/**
 * Makes sure a subscription for `spec.url` exists with `spec.types`. The platform never shows a
 * subscription's secret, so when `spec.secret` is given the subscription is always sent again: a stale
 * secret would make every delivery fail with 401.
 */
export async function ensureSubscription(
  api: SubscriptionApi,
  spec: SubscriptionSpec,
): Promise<EnsureResult> {
  const { subscriptions } = await api.getSubscriptions();
  const existing = subscriptions.find((s) => s.url === spec.url);
  const others = subscriptions.filter((s) => s.url !== spec.url);
  if (existing && spec.secret === undefined && coversTypes(existing, spec.types)) {
    return { action: 'unchanged', others };
  }
  await setSubscription(api, spec);
  return { action: existing ? 'updated' : 'created', others };
}

/** Subscribes `spec.url` (replacing a subscription for the same URL). */
export async function setSubscription(api: Pick<BotApi, 'subscribe'>, spec: SubscriptionSpec): Promise<void> {
  const result = await api.subscribe({
    url: spec.url,
    ...(spec.secret !== undefined ? { secret: spec.secret } : {}),
    ...(spec.types?.length ? { update_types: [...spec.types] } : {}),
  });
  checkSuccess(result, `subscribing ${spec.url}`);
}

/** The bot's subscriptions. */
export async function listSubscriptions(api: Pick<BotApi, 'getSubscriptions'>): Promise<Subscription[]> {
  return (await api.getSubscriptions()).subscriptions;
}

/** Removes the subscription for `url`; throws SubscriptionError when there is none. */
export async function deleteSubscription(api: Pick<BotApi, 'unsubscribe'>, url: string): Promise<void> {
  checkSuccess(await api.unsubscribe({ url }), `removing the subscription ${url}`);
}
