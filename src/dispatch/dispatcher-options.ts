/**
 * What the dispatcher needs and what it reports: its options and the outcome of each settled row.
 */
import type { Logger } from 'pino';
import type { Clock } from '../store/ports/clock.ts';
import type { OutboxPort } from '../store/ports/outbox.ts';
import type { CallGateway, MediaUploader } from './send.ts';

/** What happened to one outbox row. */
export interface DispatchOutcome {
  outboxId: number;
  conversationKey: string;
  op: string;
  status: 'done' | 'failed';
  /** How many times it was handed over (2+ means it was resent after a crash). */
  attempts: number;
  error?: { code: string; message: string };
}

/** What the dispatcher needs. */
export interface DispatcherOptions {
  outbox: OutboxPort;
  /** This process's name among the dispatchers of one database (the lease holder's); default `local`. */
  member?: string;
  gateway: CallGateway;
  upload?: MediaUploader | undefined;
  /** Time, and the timers of the handover pause and wait. */
  clock: Clock;
  logger?: Logger | undefined;
  /** Calls handed to the scheduler at once, all order keys together (default 256). */
  maxInFlight?: number;
  /** Called after a result event was written to the inbox (the engine processes it). */
  onResult?(): void;
  /** Called for every settled row. */
  onOutcome(outcome: DispatchOutcome): void;
  /**
   * `lead()`: pause before the first claim (default 1000 ms: the platform's limits are per second), and
   * again after the previous dispatcher's last call when it was still sending.
   */
  handoverPauseMs?: number;
  /**
   * `lead()`: how long to wait, at most, for the calls a previous dispatcher still sends (it lost its lease
   * while alive: its scheduler sends what it holds); default 30 s. Meanwhile this one sends nothing, so
   * the two together stay within the limits.
   */
  handoverWaitMs?: number;
  /**
   * A call in doubt (handed to the transport by a dispatcher that then died) is read back only this long
   * after it was handed over (default 3000 ms): the dead process's request may still be on its way.
   */
  inDoubtSettleMs?: number;
}
