/**
 * `botflow-engine/intake`. Intake: how updates reach the inbox (webhook, long polling), the keys derived
 * from them, subscriptions, mini-app initData, and external events over HTTP (`POST /events`).
 */
export {
  type EventAddress,
  EventInvalidError,
  type EventReceipt,
  type EventSender,
  eventEntry,
  type OutsideEvent,
} from '../inbox/event-entry.ts';
export { type AcceptedBatch, type InboxCommit, InboxWriter, type OnAccepted } from '../inbox/inbox-writer.ts';
export {
  type ConversationKeyStrategy,
  canonicalUpdateJson,
  conversationKey,
  dedupeKey,
  updatePlace,
} from '../inbox/keys.ts';
export { DEFAULT_INBOX_RETENTION_MS, type PrunerOptions, startInboxPruner } from '../inbox/pruner.ts';
export { InvalidUpdateError, updateEntry } from '../inbox/update-entry.ts';
export { PgInbox } from '../store/postgres/inbox.ts';
export {
  buildEventsServer,
  DEFAULT_EVENTS_MAX_BODY,
  type EventsEndpointOptions,
  type EventsErrorBody,
  type EventsServerOptions,
  eventsEndpoint,
  IDEMPOTENCY_HEADER,
  type MiniAppEventsOptions,
} from './events-endpoint.ts';
export {
  INIT_DATA_CLOCK_SKEW_SECONDS,
  MiniAppDataError,
  type MiniAppInitData,
  type MiniAppUser,
  type ValidateInitDataOptions,
  validateInitData,
} from './mini-app.ts';
export { PollingError, type PollingHandle, type PollingOptions, startPolling } from './polling.ts';
export {
  deleteSubscription,
  type EnsureResult,
  ensureSubscription,
  listSubscriptions,
  SubscriptionError,
  type SubscriptionSpec,
  setSubscription,
} from './subscriptions.ts';
export {
  buildWebhook,
  SECRET_HEADERS,
  type WebhookIntake,
  type WebhookReceiverOptions,
  webhookIntake,
} from './webhook.ts';
