/**
 * The inbox consumer. Pending events are taken in arrival order, in batches; each event is one step in
 * its own savepoint inside the batch's transaction (group commit), so one conversation's failure rolls back
 * only its own writes: the event is marked failed with the reason, the session keeps its last good
 * snapshot, and the other events of the batch commit. Events of one conversation are handled strictly in
 * arrival order; nothing waits inside a step (a reply, a timer or an API result is just a later event).
 */
import Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { decodeUpdate } from '../api/schemas/index.ts';
import { type ConversationKeyStrategy, conversationKey, updatePlace } from '../intake/keys.ts';
import { EngineInbox, type InboxEvent } from '../store/engine-inbox.ts';
import type { SessionRow } from '../store/sessions.ts';
import type { ButtonSigner } from './buttons.ts';
import { StepWriter } from './commit.ts';
import type { EventMeta, FlowEvent, FlowInput } from './contract.ts';
import type { PlannedCall } from './effects.ts';
import { type Incoming, interpretUpdate, metaOf, type Press } from './events.ts';
import type { FlowRegistry } from './registry.ts';
import { findFlowToStart } from './routing.ts';
import { type StepCause, type StoredSnapshot, step } from './step.ts';

/** What became of one inbox event. */
export interface EventOutcome {
  inboxId: number;
  kind: string;
  conversationKey: string | null;
  status: 'done' | 'ignored' | 'failed';
  reason?: string;
  /** The session after the event, when a step was committed. */
  session?: { flowId: string; revision: number; stateValue: string; status: string };
  calls: number;
  error?: unknown;
}

/** What the processor needs. */
export interface ProcessorOptions {
  db: Database.Database;
  registry: FlowRegistry;
  signer: ButtonSigner;
  keyStrategy: ConversationKeyStrategy;
  now: () => number;
  logger?: Logger | undefined;
  /** Answer to a press on a keyboard nobody can act on any more (no session, or policy `notify` without text). */
  staleText: string;
  /** Events per transaction. */
  batchSize: number;
}

/** Failures of the environment, not of one event: the batch is retried later instead of failing events. */
const ENVIRONMENTAL = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|NOMEM|READONLY|CANTOPEN|CORRUPT|PROTOCOL|INTERRUPT)/;

function isEnvironmental(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return error instanceof Database.SqliteError && typeof code === 'string' && ENVIRONMENTAL.test(code);
}

class Ignored {
  constructor(readonly reason: string) {}
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Consumes the inbox. */
export class InboxProcessor {
  readonly writer: StepWriter;
  readonly inbox: EngineInbox;
  readonly #o: ProcessorOptions;
  readonly #fastBatch: Database.Transaction<() => EventOutcome[]>;
  readonly #carefulBatch: Database.Transaction<() => EventOutcome[]>;

  constructor(options: ProcessorOptions) {
    this.#o = options;
    this.writer = new StepWriter(options.db);
    this.inbox = new EngineInbox(options.db);
    // Rows are read inside the write transaction: no other writer can take them meanwhile.
    // Fast path: no savepoint per event. Flow code runs before an event writes anything, so when an event
    // throws, the whole batch is rolled back and run again the careful way, with one savepoint per event.
    this.#fastBatch = options.db.transaction(() =>
      this.inbox.pending(0, options.batchSize).map((row) => this.#handle(row)),
    );
    const perEvent = options.db.transaction((row: InboxEvent) => this.#handle(row));
    this.#carefulBatch = options.db.transaction(() =>
      this.inbox.pending(0, options.batchSize).map((row) => this.#processOne(row, perEvent)),
    );
  }

  /** Processes up to one batch of pending events; returns what became of each (empty when none waits). */
  processBatch(): EventOutcome[] {
    try {
      return this.#fastBatch.immediate();
    } catch (error) {
      if (isEnvironmental(error)) throw error;
      return this.#carefulBatch.immediate();
    }
  }

  #processOne(row: InboxEvent, perEvent: (row: InboxEvent) => EventOutcome): EventOutcome {
    try {
      return perEvent(row);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (error instanceof Database.SqliteError && typeof code === 'string' && ENVIRONMENTAL.test(code))
        throw error;
      const key = row.conversationKey;
      const reason = describeError(error);
      this.inbox.settle(row.id, 'failed', reason, key, this.#o.now());
      this.#o.logger?.error(
        { conversation: key, inboxId: row.id, kind: row.kind, err: error },
        'event failed; the session keeps its last good snapshot',
      );
      return {
        inboxId: row.id,
        kind: row.kind,
        conversationKey: key,
        status: 'failed',
        reason,
        calls: 0,
        error,
      };
    }
  }

  #handle(row: InboxEvent): EventOutcome {
    const now = this.#o.now();
    let key = row.conversationKey;
    try {
      const outcome = this.#route(row, now, (k) => {
        key = k;
      });
      this.inbox.settle(row.id, 'done', null, key, now);
      return { inboxId: row.id, kind: row.kind, conversationKey: key, status: 'done', ...outcome };
    } catch (error) {
      if (!(error instanceof Ignored)) throw error;
      this.inbox.settle(row.id, 'ignored', error.reason, key, now);
      return {
        inboxId: row.id,
        kind: row.kind,
        conversationKey: key,
        status: 'ignored',
        reason: error.reason,
        calls: 0,
      };
    }
  }

  #route(
    row: InboxEvent,
    now: number,
    setKey: (key: string) => void,
  ): Pick<EventOutcome, 'session' | 'calls' | 'reason'> {
    if (row.kind === 'update') {
      let raw: unknown;
      try {
        raw = JSON.parse(row.payload);
      } catch {
        throw new Error(`inbox row ${row.id}: payload is not JSON`);
      }
      const update = decodeUpdate(raw);
      const key = conversationKey(update, this.#o.keyStrategy) ?? row.conversationKey;
      if (!key) throw new Ignored('the update names no chat and no person');
      setKey(key);
      const session = this.writer.sessions.get(key);
      const meta = metaOf(update, updatePlace(update), key, row.receivedAt, session?.chatId);
      return this.#incoming(key, session, interpretUpdate(update, meta), now);
    }
    const key = row.conversationKey;
    if (!key) throw new Ignored(`a ${row.kind} event without a conversation`);
    const payload = JSON.parse(row.payload) as Record<string, unknown>;
    const session = this.writer.sessions.get(key);
    if (session?.status !== 'active') throw new Ignored('the session it belonged to has ended');
    const meta = sessionMeta(session, now);
    if (row.kind === 'timer') {
      if (payload.stepInstance !== session.stepInstance)
        throw new Ignored('the step that armed the timer was left');
      const event: FlowEvent = {
        type: 'timer',
        name: String(payload.name),
        meta: { ...meta, now: Number(payload.fireAt) },
      };
      return this.#run(key, session, event, now);
    }
    if (row.kind === 'effect_result') {
      if (Number(payload.revision) < session.startedRevision)
        throw new Ignored('it belongs to an earlier session');
      const ref = String(payload.ref);
      const event: FlowEvent = payload.ok
        ? { type: 'effect.done', ref, result: payload.result, meta }
        : { type: 'effect.failed', ref, error: payload.error as { code: string; message: string }, meta };
      return this.#run(key, session, event, now);
    }
    throw new Ignored(`unknown inbox event kind "${row.kind}"`);
  }

  #incoming(
    key: string,
    session: SessionRow | undefined,
    incoming: Incoming,
    now: number,
  ): Pick<EventOutcome, 'session' | 'calls' | 'reason'> {
    const active = session?.status === 'active' ? session : undefined;
    switch (incoming.kind) {
      case 'press':
        return this.#press(key, session, incoming.press, now);
      case 'leave': {
        let result: Pick<EventOutcome, 'session' | 'calls'> = { calls: 0 };
        if (active) result = this.#run(key, active, incoming.event, now, { status: 'stopped', silent: true });
        const why =
          incoming.reason === 'bot_stopped' ? 'the person stopped the bot' : 'the person removed the dialog';
        this.writer.timers.settleAll(key, 'cancelled', why, now);
        const dropped = this.writer.outbox.dropPending(key, why, now);
        if (dropped > 0) this.#o.logger?.info({ conversation: key, dropped }, `unsent calls dropped: ${why}`);
        return result;
      }
      case 'event': {
        if (active) return this.#run(key, active, incoming.event, now);
        if (!incoming.trigger)
          throw new Ignored('no running session, and this kind of update starts no flow');
        return this.#start(key, session, incoming.trigger, incoming.event.meta, now);
      }
    }
  }

  #press(
    key: string,
    session: SessionRow | undefined,
    press: Press,
    now: number,
  ): Pick<EventOutcome, 'session' | 'calls' | 'reason'> {
    const callback = {
      id: press.callbackId,
      ...(press.messageId !== undefined ? { messageId: press.messageId } : {}),
      ...(press.meta.chatId !== undefined ? { chatId: press.meta.chatId } : {}),
    };
    const verified = this.#o.signer.verify(key, press.payload);
    if (!verified.ok) {
      this.#answerAlone(key, session, press, undefined, now);
      throw new Ignored(
        verified.reason === 'malformed'
          ? 'button payload was not made by botflow'
          : 'button payload signature does not match this conversation (forged, or pressed by someone else)',
      );
    }
    const event: FlowEvent = {
      type: 'button',
      button: verified.button,
      ...(verified.value !== undefined ? { value: verified.value } : {}),
      callbackId: press.callbackId,
      ...(press.message ? { message: press.message } : {}),
      meta: press.meta,
    };
    const active = session?.status === 'active' ? session : undefined;
    if (active && verified.instance === active.stepInstance)
      return this.#run(key, active, event, now, { callback });
    if (!active) {
      const flow = findFlowToStart(this.#o.registry.current(), { kind: 'button', button: verified.button });
      if (flow)
        return this.#start(
          key,
          session,
          { kind: 'button', button: verified.button },
          press.meta,
          now,
          callback,
        );
      this.#answerAlone(key, session, press, this.#o.staleText, now);
      throw new Ignored('stale button: the conversation has no running session');
    }
    const { flow } = this.#o.registry.resolve(active.flowId, active.flowVersion, JSON.parse(active.snapshot));
    const policy = flow.stalePolicy(JSON.parse(active.stateValue));
    if (policy.kind === 'accept') {
      return {
        ...this.#run(key, active, event, now, { callback }),
        reason: 'stale button accepted by policy',
      };
    }
    if (policy.kind === 'rerender' && flow.rerenderEvent) {
      const rerender = { ...flow.rerenderEvent, meta: press.meta } as FlowEvent;
      return {
        ...this.#run(key, active, rerender, now, { callback }),
        reason: 'stale button: step drawn again',
      };
    }
    const text = policy.kind === 'notify' && policy.text ? policy.text : this.#o.staleText;
    this.#answerAlone(key, active, press, text, now);
    return { calls: 1, reason: 'stale button: person notified' };
  }

  /** Answers a press outside any step (stale, forged): the person must not watch a spinner. */
  #answerAlone(
    key: string,
    session: SessionRow | undefined,
    press: Press,
    text: string | undefined,
    now: number,
  ): void {
    const call: PlannedCall = {
      kind: 'api',
      op: 'answerCallback',
      args: { callback_id: press.callbackId, ...(text ? { notification: text } : {}) },
      orderKey: `cb:${press.callbackId}`,
      priority: 'callback',
      ...(press.meta.chatId !== undefined ? { chatId: press.meta.chatId } : {}),
    };
    this.writer.insertCall(key, session?.revision ?? 0, 0, call, now, `answer:${press.callbackId}`);
  }

  #run(
    key: string,
    session: SessionRow,
    event: FlowEvent,
    now: number,
    extra: {
      callback?: { id: string; messageId?: string; chatId?: number };
      status?: 'stopped';
      silent?: boolean;
    } = {},
  ): Pick<EventOutcome, 'session' | 'calls'> {
    const resolved = this.#o.registry.resolve(
      session.flowId,
      session.flowVersion,
      JSON.parse(session.snapshot),
    );
    if (resolved.migrated) {
      this.#o.logger?.info(
        { conversation: key, flow: session.flowId, from: session.flowVersion, to: resolved.flow.version },
        'session migrated to the loaded flow version',
      );
    }
    const cause: StepCause = { type: 'event', event };
    const result = step(
      resolved.flow,
      {
        snapshot: resolved.snapshot as StoredSnapshot,
        revision: session.revision,
        stepInstance: session.stepInstance,
      },
      cause,
      this.#stepOptions(key, extra.callback),
    );
    if (extra.silent) {
      result.calls = [];
      result.timers = [];
    }
    const forceWrite = resolved.migrated || extra.status !== undefined;
    if (forceWrite) result.idle = false;
    const row = this.writer.write({
      conversationKey: key,
      prior: session,
      flow: resolved.flow,
      result,
      meta: event.meta,
      started: false,
      now,
      ...(extra.status ? { status: extra.status } : {}),
    });
    if (result.idle) throw new Ignored('the current step does not handle this event');
    return { calls: result.calls.length, ...(row ? { session: summary(row) } : {}) };
  }

  #start(
    key: string,
    prior: SessionRow | undefined,
    trigger: FlowInput['trigger'],
    meta: EventMeta,
    now: number,
    callback?: { id: string; messageId?: string; chatId?: number },
  ): Pick<EventOutcome, 'session' | 'calls'> {
    const flow = findFlowToStart(this.#o.registry.current(), trigger);
    if (!flow) throw new Ignored('no running session, and no flow trigger matches');
    const result = step(
      flow,
      { revision: prior?.revision ?? 0, stepInstance: prior?.stepInstance ?? 0 },
      { type: 'start', input: { trigger, meta } },
      this.#stepOptions(key, callback),
    );
    const row = this.writer.write({ conversationKey: key, prior, flow, result, meta, started: true, now });
    return { calls: result.calls.length, ...(row ? { session: summary(row) } : {}) };
  }

  #stepOptions(key: string, callback: { id: string; messageId?: string; chatId?: number } | undefined) {
    const signer = this.#o.signer;
    return {
      conversationKey: key,
      sign: (instance: number, payload: string) => signer.sign(key, instance, payload),
      ...(callback ? { callback } : {}),
    };
  }
}

function sessionMeta(session: SessionRow, now: number): EventMeta {
  return {
    conversation: session.conversationKey,
    ...(session.chatId !== null ? { chatId: session.chatId } : {}),
    ...(session.userId !== null ? { userId: session.userId } : {}),
    ...(session.locale !== null ? { locale: session.locale } : {}),
    now,
  };
}

function summary(row: SessionRow): NonNullable<EventOutcome['session']> {
  return { flowId: row.flowId, revision: row.revision, stateValue: row.stateValue, status: row.status };
}
