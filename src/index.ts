/**
 * botflow's public API: the typed client and its scheduler, the engine, flow files, intake, the store and
 * the sandbox. The testing tools are in `botflow/testing`; the full sandbox surface in its own module.
 */
export * from './api/index.ts';
export * from './api/scheduler/index.ts';
export * from './api/upload.ts';
export * from './engine/index.ts';
export * from './flows/index.ts';
export {
  type AcceptedBatch,
  buildWebhook,
  type ConversationKeyStrategy,
  conversationKey,
  dedupeKey,
  deleteSubscription,
  ensureSubscription,
  listSubscriptions,
  PollingError,
  type PollingHandle,
  type PollingOptions,
  SECRET_HEADERS,
  SubscriptionError,
  setSubscription,
  startInboxPruner,
  startPolling,
  type WebhookOptions,
} from './intake/index.ts';
export {
  buildSandbox,
  type Sandbox,
  SandboxControl,
  type SandboxOptions,
  type StartOptions as SandboxStartOptions,
  startSandbox,
} from './sandbox/index.ts';
export {
  type DatabaseOptions,
  DEFAULT_MIGRATIONS_DIR,
  MigrationError,
  openDatabase,
} from './store/database.ts';
