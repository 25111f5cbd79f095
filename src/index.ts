/**
 * botflow-engine, the main entry: what a bot project needs from its own code.
 * - Run a bot inside your service: `createBot()`; mount its webhook on your fastify app.
 * - Give flow files their code: `defineRegistry()` with validators, guards, effects and tasks, and kinds of
 *   step of your own made by `defineStepKind()`.
 * - Call the Bot API yourself: `BotApi` and its errors.
 * - Tell botflow's errors apart: `BotflowError`, `isBotflowError(error, code)`, the codes in docs/errors.md.
 * - Tell the flows what happened outside the chat: `bot.events.send(event)` (`OutsideEvent`; a refused one
 *   throws `EventInvalidError`).
 *
 * The rest lives in subpaths: `botflow-engine/flows` (load, check, compile flow files),
 * `botflow-engine/engine` (the engine and hand-written flows), `botflow-engine/client` (the full client,
 * the scheduler, uploads), `botflow-engine/intake` (webhook, long polling, subscriptions),
 * `botflow-engine/sandbox` (the local platform), `botflow-engine/testing` (transcripts, harness, replay)
 * and `botflow-engine/testing/vitest` (one vitest test per transcript).
 */
export { BotApi, type BotApiOptions, isFailure } from './client/client.ts';
export { ApiError, NetworkError, UsageError } from './client/errors.ts';
export type {
  Button,
  Callback,
  Chat,
  Keyboard,
  Message,
  NewMessageBody,
  Update,
  User,
} from './client/schemas/index.ts';
export type { Effect } from './engine/step/contract.ts';
export { BotflowError, isBotflowError } from './errors/index.ts';
export { defineStepKind, type StepKindSpec } from './flows/kinds/custom.ts';
export {
  defineRegistry,
  defineTask,
  type EffectFactory,
  type FlowScope,
  type Guard,
  type Registry,
  TaskError,
  type Validator,
} from './flows/registry.ts';
export { EventInvalidError, type OutsideEvent } from './inbox/event-entry.ts';
export { type Bot, type BotConfig, type CreateBotOptions, createBot } from './runtime/bot.ts';
export { createDeployment, type RunningDeployment } from './runtime/bot-deployment.ts';
export { ConfigError, type ConfigProblem } from './runtime/config.ts';
export { StartupError } from './runtime/startup-error.ts';
