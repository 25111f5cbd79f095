/**
 * `botflow-engine/engine`. The engine: per-conversation XState machines persisted in SQLite or PostgreSQL. Build one with
 * `createEngine({ db })` (SQLite, one process) or `createEngine({ store: postgresStore(pg) })` (several processes on one
 * PostgreSQL database, `openPostgres`); write flows by hand with the helpers (or compile flow files with src/flows); test steps
 * with the pure `step`.
 */

export type { CallGateway, DispatchOutcome, MediaUploader } from '../dispatch/dispatcher.ts';
export {
  type EventAddress,
  EventInvalidError,
  type EventReceipt,
  type EventSender,
  type OutsideEvent,
  type StoredEvent,
} from '../inbox/event-entry.ts';
export type {
  CampaignFigures,
  PersonFacts,
  RecipientRow,
  RecipientStatus,
  Segment,
} from '../store/campaigns/types.ts';
export {
  type DatabaseOptions,
  DEFAULT_MIGRATIONS_DIR,
  MigrationError,
  openDatabase,
} from '../store/database.ts';
export type { EngineStore, Partitions } from '../store/ports/engine.ts';
export {
  dropPostgresSchema,
  openPostgres,
  openSharedPostgres,
  type PostgresDatabase,
  type PostgresOptions,
  type SharedPostgres,
  type SharedPostgresOptions,
} from '../store/postgres/database.ts';
export { type PostgresEngineStore, postgresStore } from '../store/postgres/engine-store.ts';
export {
  type SqliteEngineStore,
  type SqliteStoreOptions,
  sqliteStore,
} from '../store/sqlite/engine-store.ts';
export {
  startWriterThread,
  type WriterThread,
  type WriterThreadOptions,
  WriterThreadStoppedError,
} from '../store/sqlite/writer-thread.ts';
export type { GraceReport, TimerGrace } from '../store/timer-service.ts';
export type { CampaignPlan, CampaignReport, CampaignsApi } from './campaigns/api.ts';
export { CAMPAIGN_SUFFIX, parseCampaignSource, readCampaignFile } from './campaigns/file.ts';
export { CampaignError, type CampaignSpec } from './campaigns/spec.ts';
export {
  type Answer,
  createEngine,
  type Engine,
  type EngineApi,
  type EngineEvents,
  type EngineOptions,
} from './engine.ts';
export type { EngineEventSender } from './events.ts';
export type { HistoryEntry, SessionDetail, SessionInspector, SessionListing } from './inspect.ts';
export type { Role as ClusterRole } from './lane/ownership.ts';
export type { EventOutcome } from './lane/processor.ts';
export { findFlowToStart } from './lane/routing.ts';
export { ButtonPayloadError, ButtonSigner, type VerifiedPress } from './step/buttons.ts';
export { type Clock, systemClock } from './step/clock.ts';
export * from './step/contract.ts';
export { EffectError, type PlannedCall, type TimerChange } from './step/effects.ts';
export { FlowDefinitionError, FlowSet, MissingFlowVersionError } from './step/flow-set.ts';
export {
  type ActionInput,
  answer,
  armTimer,
  button,
  type Computed,
  cancelTask,
  cancelTimer,
  defineFlow,
  type EffectAction,
  edit,
  effect,
  type FlowSpec,
  keyboard,
  type MessageOptions,
  machineVersion,
  rejectInput,
  say,
  startTask,
  unrecognisedInput,
  uploadAndSend,
} from './step/helpers.ts';
export {
  restoreSnapshot,
  type StepCause,
  StepError,
  type StepResult,
  type StepState,
  type StoredSnapshot,
  step,
} from './step/step.ts';
