/** `botflow-engine/sandbox`. The sandbox: a local, faithful emulation of the messenger platform. */
export {
  buildSandbox,
  DEFAULT_PROCESSING_MS,
  REALISTIC_TIMING,
  type SandboxInternals,
  type SandboxOptions,
} from './app.ts';
export type { BotIdentity, NewBot, SandboxBot, SandboxBots } from './bots.ts';
export type { PersonFile, PersonMessage, PressResult } from './control/people-messages.ts';
export type { PersonView, SeenMessage } from './control/view.ts';
export {
  type ChatRef,
  type SandboxBotInfo,
  type SandboxChat,
  SandboxControl,
  SandboxControlError,
  type SandboxMessage,
  type SandboxUser,
} from './control-client.ts';
export type { Update as SandboxUpdate } from './delivery/hub.ts';
export type { DeliveryAttempt, WebhookOptions } from './delivery/webhook.ts';
export type { FeedEvent } from './feed.ts';
export { type LimitOptions, PLATFORM_LIMITS } from './limits.ts';
export type { LoggedRequest, RequestLog } from './request-log.ts';
export { type Sandbox, type StartOptions, startSandbox } from './start.ts';
