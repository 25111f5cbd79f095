/**
 * `botflow-engine/engine`. The engine: per-conversation XState machines persisted in SQLite. Build one with `createEngine`; write
 * flows by hand with the helpers (or compile flow files with src/flows); test steps with the pure `step`.
 */

export {
  type DatabaseOptions,
  DEFAULT_MIGRATIONS_DIR,
  MigrationError,
  openDatabase,
} from '../store/database.ts';
export { ButtonPayloadError, ButtonSigner, type VerifiedPress } from './buttons.ts';
export { type Clock, systemClock } from './clock.ts';
export * from './contract.ts';
export type { CallGateway, DispatchOutcome, MediaUploader } from './dispatcher.ts';
export { EffectError, type PlannedCall, type TimerChange } from './effects.ts';
export {
  createEngine,
  type Engine,
  type EngineApi,
  type EngineEvents,
  type EngineOptions,
} from './engine.ts';
export {
  type ActionInput,
  answer,
  armTimer,
  button,
  type Computed,
  cancelTimer,
  defineFlow,
  type EffectAction,
  edit,
  effect,
  type FlowSpec,
  keyboard,
  type MessageOptions,
  machineVersion,
  say,
  uploadAndSend,
} from './helpers.ts';
export type { HistoryEntry, SessionDetail, SessionInspector, SessionListing } from './inspect.ts';
export type { EventOutcome } from './processor.ts';
export { FlowDefinitionError, FlowRegistry, MissingFlowVersionError } from './registry.ts';
export { findFlowToStart } from './routing.ts';
export {
  restoreSnapshot,
  type StepCause,
  StepError,
  type StepResult,
  type StepState,
  type StoredSnapshot,
  step,
} from './step.ts';
export type { GraceReport, TimerGrace } from './timers.ts';
export {
  startWriterThread,
  type WriterThread,
  type WriterThreadOptions,
  WriterThreadStoppedError,
} from './writer-thread.ts';
