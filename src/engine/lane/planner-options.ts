/** What the event planner (planner.ts) is given: its reads, the flows, the signer and the clock. */
import type { Logger } from 'pino';
import type { InboxEvent } from '../../store/engine-inbox.ts';
import type { SessionRow } from '../../store/sessions.ts';
import type { ButtonSigner } from '../step/buttons.ts';
import type { FlowSet } from '../step/flow-set.ts';
import type { CachedSession } from './session-cache.ts';

/** What the planner needs. */
export interface PlannerOptions {
  /** The stored session of a conversation (SQLite reads it; PostgreSQL reads a batch's sessions beforehand). */
  load(conversationKey: string): SessionRow | undefined;
  flows: FlowSet;
  signer: ButtonSigner;
  now: () => number;
  logger?: Logger | undefined;
  /** The bot's username: commands addressed to another bot in a group (`/start@other`) are not ours. */
  botUsername?: string | undefined;
  /** Answer to a press on a keyboard nobody can act on any more (no session, or policy `notify` without text). */
  staleText: string;
  /** A session known in memory (planned earlier in the batch, or cached), read before the database. */
  session(conversationKey: string): CachedSession | undefined;
  /** What an update from an operators' chat means (lane/operators.ts); undefined for other rows. */
  operator?(row: InboxEvent, now: number): { reason: string } | undefined;
  /** Keep unrecognised texts as samples in the step log (default true; config `funnel.samples`). */
  funnelSamples?: boolean | undefined;
  /** Untaken handoff requests by operators' chat, given to events as `meta.handoffWaiting`. */
  handoffWaiting?(): Record<string, number> | undefined;
}
