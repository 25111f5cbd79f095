/** `botflow-engine/intake`. Intake: how updates reach the inbox (webhook, long polling), the keys derived from them, subscriptions. */
export { type AcceptedBatch, type InboxCommit, InboxWriter, type OnAccepted } from './inbox-writer.ts';
export {
  type ConversationKeyStrategy,
  canonicalJson,
  conversationKey,
  dedupeKey,
  updatePlace,
} from './keys.ts';
export { PollingError, type PollingHandle, type PollingOptions, startPolling } from './polling.ts';
export { DEFAULT_INBOX_RETENTION_MS, type PrunerOptions, startInboxPruner } from './pruner.ts';
export {
  deleteSubscription,
  type EnsureResult,
  ensureSubscription,
  listSubscriptions,
  SubscriptionError,
  type SubscriptionSpec,
  setSubscription,
} from './subscriptions.ts';
export { InvalidUpdateError, updateEntry } from './update-entry.ts';
export {
  buildWebhook,
  SECRET_HEADERS,
  type WebhookIntake,
  type WebhookOptions,
  webhookIntake,
} from './webhook.ts';
