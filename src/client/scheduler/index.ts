/** The rate-limit scheduler (`botflow-engine/client`): public surface. */
export type { SchedulerMetrics, WaitSummary } from './metrics.ts';
export {
  DEFAULT_SEND_LIMITS,
  DEFAULT_TTL_MS,
  type LoggerLike,
  type SchedulerOptions,
  type TimerFactory,
} from './options.ts';
export { defaultPriority } from './priorities.ts';
export { DEFAULT_NOT_READY_BUDGET_MS, type RetryOptions } from './retry-policy.ts';
export { Scheduler } from './scheduler.ts';
export {
  BudgetExhausted,
  type BudgetGrant,
  localSharedBudget,
  type SharedBudget,
  withinBudget,
} from './shared-budget.ts';
export { throttledClient } from './throttled-client.ts';
export {
  type ApiCaller,
  DeadLetterError,
  type DeadLetterReason,
  type DeadLetterRecord,
  type Job,
  type Limits,
  type MediaKind,
  PRIORITIES,
  type Priority,
  type Task,
} from './types.ts';
