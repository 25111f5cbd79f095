import type { AnyMachineSnapshot } from 'xstate';
import { EVENT_KIND } from '../../inbox/event-entry.ts';
import { updatePlace } from '../../inbox/keys.ts';
import type { InboxEvent } from '../../store/engine-inbox.ts';
import { WritePlan, type WrittenSession } from '../commit/write-plan.ts';
import type { EventMeta, FlowDefinition, FlowEvent, FlowInput } from '../step/contract.ts';
import { decodeStoredUpdate, type Incoming, interpretUpdate, metaOf, type Press } from '../step/events.ts';
import { type StepCause, type StepOptions, type StoredSnapshot, step, stepName } from '../step/step.ts';
import { CAMPAIGN_KIND, campaignSkipped, campaignStart, campaignStarted } from './campaign-entry.ts';
import { answerPersonGone, fromEarlierRequest, tellOperatorsLeft } from './handoff-left.ts';
import { withWaiting } from './handoff-queue.ts';
import { internalEvent } from './internal-events.ts';
import {
  describeError,
  type EventOutcome,
  type EventPlan,
  ignoredPlan,
  type Planned,
  type Ran,
  ranOf,
  reportFailure,
  type Skipped,
  sessionMeta,
  skip,
} from './outcome.ts';
import { decodeStoredEvent, eventMeta, eventPolicy, INTERRUPT_KEEPS } from './outside-events.ts';
import { answerAlone } from './press-answer.ts';
import { findFlowToStart } from './routing.ts';
import type { CachedSession } from './session-cache.ts';

export type { EventOutcome, EventPlan } from './outcome.ts';

import type { PlannerOptions } from './planner-options.ts';

export type { PlannerOptions } from './planner-options.ts';

type Maybe<T> = T | undefined;
type Callback = { id: string; messageId?: string; chatId?: number };

/** Plans inbox events, one at a time, in arrival order. */
export class EventPlanner {
  readonly #o: PlannerOptions;
  readonly #plan: WritePlan;
  readonly #sign: StepOptions['sign'];
  /** The session the event being planned leaves behind, when it wrote one. */
  #written: CachedSession | undefined;

  constructor(options: PlannerOptions) {
    this.#o = options;
    this.#plan = new WritePlan({ samples: options.funnelSamples });
    const signer = options.signer;
    this.#sign = (instance, payload, conversationKey) => signer.sign(conversationKey, instance, payload);
  }

  /**
   * Plans `row`. A flow that throws, or an event that cannot be understood, gives a `failed` outcome whose
   * only write is the inbox row's status: the session keeps its last good snapshot.
   */
  plan(row: InboxEvent): EventPlan {
    const now = this.#o.now();
    let key = row.conversationKey;
    this.#plan.take();
    this.#written = undefined;
    let planned: Planned;
    try {
      planned = this.#route(row, now, (k) => {
        key = k;
      });
    } catch (error) {
      this.#plan.take(); // nothing of a failed event is written but its status
      return this.failed(row, key, error);
    }
    if ('ignored' in planned) {
      this.#plan.settle(row.id, 'ignored', planned.ignored, key, now);
      return ignoredPlan(row, key, planned.ignored, this.#plan.take());
    }
    // Done rows are settled per batch; one whose key intake could not tell gets it now.
    if (row.conversationKey === null && key !== null) this.#plan.settle(row.id, 'done', null, key, now);
    const outcome: EventOutcome = {
      inboxId: row.id,
      kind: row.kind,
      conversationKey: key,
      status: 'done',
      ...planned,
    };
    return { row, outcome, ops: this.#plan.take(), ...(this.#written ? { written: this.#written } : {}) };
  }

  /** The plan of an event that failed with `error`: logged, and marked failed with the reason. */
  failed(row: InboxEvent, key: string | null, error: unknown, reason = describeError(error)): EventPlan {
    this.#o.logger?.error(
      { conversation: key, inboxId: row.id, kind: row.kind, err: error },
      'event failed; the session keeps its last good snapshot',
    );
    const now = this.#o.now();
    return {
      row,
      outcome: {
        inboxId: row.id,
        kind: row.kind,
        conversationKey: key,
        status: 'failed',
        reason,
        calls: 0,
        error,
      },
      ops: [{ kind: 'settle', id: row.id, status: 'failed', reason, key, now }],
    };
  }

  /** The conversation's session: the one known in memory, else the stored one. */
  #session(key: string): CachedSession | undefined {
    const cached = this.#o.session(key);
    if (cached) return cached;
    const row = this.#o.load(key);
    return row ? { row, armedTimers: undefined } : undefined;
  }

  #route(row: InboxEvent, now: number, setKey: (key: string) => void): Planned {
    const handedOver = this.#o.operator?.(row, now);
    if (handedOver) return skip(handedOver.reason); // its event was stored before planning (batches.ts)
    if (row.kind === 'update') {
      const decoded = decodeStoredUpdate(row.id, row.payload);
      if ('ignored' in decoded) return skip(decoded.ignored);
      const { update } = decoded;
      // Intake keyed the row when it stored it (inbox/keys.ts): the one place a conversation key is made.
      const key = row.conversationKey;
      if (!key) return skip('the update names no chat and no person');
      setKey(key);
      const session = this.#session(key);
      const meta = metaOf(update, updatePlace(update), key, row.receivedAt, session?.row.chatId);
      return this.#incoming(key, session, interpretUpdate(update, meta, this.#o.botUsername), now);
    }
    const key = row.conversationKey;
    if (!key) return skip(`a ${row.kind} event without a conversation`);
    if (row.kind === EVENT_KIND) return this.#outside(key, row, now);
    if (row.kind === CAMPAIGN_KIND) return this.#campaign(key, row.payload, now);
    const payload = JSON.parse(row.payload) as Record<string, unknown>;
    const session = this.#session(key);
    if (session?.row.status !== 'active') return skip('the session it belonged to has ended');
    const event = internalEvent(row.kind, payload, session.row, sessionMeta(session, now));
    return 'skip' in event ? skip(event.skip) : this.#run(key, session, event, now);
  }

  /**
   * An external event: to the running session (its step takes it, or its policy decides: ignore, queue,
   * interrupt), else it starts the flow its trigger names.
   */
  #outside(key: string, row: InboxEvent, now: number): Planned {
    const stored = decodeStoredEvent(row.payload);
    const { name, payload } = stored;
    const session = this.#session(key);
    const active = session?.row.status === 'active' ? session : undefined;
    const meta = eventMeta(key, stored, active?.row, row.receivedAt);
    const trigger = { kind: 'event', name, payload } as const;
    const flows = this.#o.flows.current();
    const gone = { name, payload, rowId: row.id };
    const told = (s?: CachedSession) => answerPersonGone(this.#plan, key, gone, s, flows, now, this.#sign);
    if (!active) {
      const started = this.#start(key, session, trigger, meta, now);
      if (!('ignored' in started)) return started;
      if (told(session)) return skip(`event ${name}: the person left the handoff; the operator is told`);
      return skip(`event ${name}: no running session, and no flow starts on it`);
    }
    // A button of an earlier request (the person asked again since): that request is closed.
    if (fromEarlierRequest(payload, active, flows) && told(active))
      return skip(
        `event ${name}: from an earlier request of the person's; the operator is told it is closed`,
      );
    const ran = this.#run(key, active, { type: 'event', name, payload, meta }, now);
    if (!('ignored' in ran)) return ran;
    if (told(active)) return skip(`event ${name}: the person left the handoff; the operator is told`);
    const { flow } = this.#resume(key, active);
    const where = `step "${stepName(JSON.parse(active.row.stateValue))}" of flow "${flow.id}" does not take it`;
    const policy = eventPolicy(this.#o.flows.current(), flow, name);
    if (policy === 'queue') {
      const queued = this.#run(key, active, { type: 'botflow.queue', event: { name, payload }, meta }, now);
      if ('ignored' in queued)
        return skip(`event ${name}: ${where}, and the flow keeps no more of it (queue)`);
      return { ...queued, reason: `event ${name} queued: ${where} (while_elsewhere: queue)` };
    }
    if (policy === 'interrupt' && findFlowToStart(this.#o.flows.current(), trigger)) {
      const why = `interrupted by event ${name}`;
      this.#plan.settleTimers(key, 'cancelled', why, now);
      this.#plan.cancelTasks(key, why, now);
      this.#plan.dropCalls(key, why, now, INTERRUPT_KEEPS);
      const started = this.#start(key, active, trigger, meta, now);
      return 'ignored' in started
        ? started
        : { ...started, reason: `${why}: ${where} (while_elsewhere: interrupt)` };
    }
    return skip(
      `event ${name}: ${where} (while_elsewhere: ${policy === 'interrupt' ? 'interrupt, but no flow starts on it' : 'ignore'})`,
    );
  }

  #incoming(key: string, session: CachedSession | undefined, incoming: Incoming, now: number): Planned {
    const active = session?.row.status === 'active' ? session : undefined;
    switch (incoming.kind) {
      case 'ignore':
        return skip(incoming.reason);
      case 'press':
        return this.#press(key, session, incoming.press, now);
      case 'leave': {
        let result: Planned = { calls: 0 };
        if (active) {
          result = this.#run(key, active, incoming.event, now, { status: 'stopped', silent: true });
          if ('ignored' in result) return result;
        }
        const why =
          incoming.reason === 'bot_stopped' ? 'the person stopped the bot' : 'the person removed the dialog';
        this.#plan.ops.push({ kind: 'left', key, reason: incoming.reason, at: now });
        this.#plan.settleTimers(key, 'cancelled', why, now);
        this.#plan.dropCalls(key, why, now);
        this.#plan.cancelTasks(key, why, now);
        // After the unsent calls are dropped: the operators are told all the same.
        this.#left(key, active, this.#written, now, true);
        return result;
      }
      case 'event': {
        if (active) return this.#run(key, active, incoming.event, now);
        if (!incoming.trigger) return skip('no running session, and this kind of update starts no flow');
        return this.#start(key, session, incoming.trigger, incoming.event.meta, now);
      }
    }
  }

  /** A released campaign recipient: the campaign's flow starts (its calls `bulk`), or why not is recorded. */
  #campaign(key: string, payload: string, now: number): Planned {
    const session = this.#session(key);
    const start = campaignStart(key, payload, session?.row, this.#o.flows.current(), now);
    if ('skip' in start) return skip(campaignSkipped(this.#plan.ops, key, start, now));
    const ran = this.#start(key, session, start.trigger, start.meta, now, undefined, start.flow);
    campaignStarted(this.#plan.ops, key, start.entry, now);
    return ran;
  }

  #press(key: string, session: CachedSession | undefined, press: Press, now: number): Planned {
    const callback: Callback = {
      id: press.callbackId,
      ...(press.messageId !== undefined ? { messageId: press.messageId } : {}),
      ...(press.meta.chatId !== undefined ? { chatId: press.meta.chatId } : {}),
    };
    const verified = this.#o.signer.verify(key, press.payload);
    if (!verified.ok) {
      answerAlone(this.#plan, key, session?.row.revision ?? 0, press, undefined, now);
      return skip(
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
    const active = session?.row.status === 'active' ? session : undefined;
    if (active && verified.instance === active.row.stepInstance)
      return this.#run(key, active, event, now, { callback });
    if (!active) {
      const trigger = { kind: 'button', button: verified.button } as const;
      if (findFlowToStart(this.#o.flows.current(), trigger))
        return this.#start(key, session, trigger, press.meta, now, callback);
      answerAlone(this.#plan, key, session?.row.revision ?? 0, press, this.#o.staleText, now);
      return skip('stale button: the conversation has no running session');
    }
    const { flow } = this.#o.flows.resolve(
      active.row.flowId,
      active.row.flowVersion,
      JSON.parse(active.row.snapshot),
    );
    const policy = flow.stalePolicy(JSON.parse(active.row.stateValue));
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
    answerAlone(this.#plan, key, active.row.revision, press, text, now);
    return { calls: 1, reason: 'stale button: person notified' };
  }

  /** The flow and machine state a session's next step starts from (the cached machine snapshot when valid). */
  #resume(key: string, session: CachedSession) {
    const { row, machine } = session;
    if (machine && this.#o.flows.pinned(row.flowId, row.flowVersion) === machine.flow) {
      return { flow: machine.flow, state: { machineSnapshot: machine.snapshot }, migrated: false };
    }
    const resolved = this.#o.flows.resolve(row.flowId, row.flowVersion, JSON.parse(row.snapshot));
    if (resolved.migrated) {
      this.#o.logger?.info(
        { conversation: key, flow: row.flowId, from: row.flowVersion, to: resolved.flow.version },
        'session migrated to the loaded flow version',
      );
    }
    return {
      flow: resolved.flow,
      state: { snapshot: resolved.snapshot as StoredSnapshot },
      migrated: resolved.migrated,
    };
  }

  #run(
    key: string,
    session: CachedSession,
    event: FlowEvent,
    now: number,
    extra: { callback?: Callback; status?: 'stopped'; silent?: boolean } = {},
  ): Ran | Skipped {
    const { flow, state, migrated } = this.#resume(key, session);
    const cause: StepCause = { type: 'event', event: withWaiting(event, this.#o.handoffWaiting?.()) };
    const result = step(
      flow,
      { ...state, revision: session.row.revision, stepInstance: session.row.stepInstance },
      cause,
      this.#stepOptions(key, extra.callback),
    );
    if (extra.silent) {
      result.calls = [];
      result.timers = [];
    }
    if (migrated || extra.status !== undefined) result.idle = false;
    const written = this.#plan.write({
      conversationKey: key,
      prior: session,
      flow,
      result,
      meta: event.meta,
      started: false,
      now,
      ...(extra.status ? { status: extra.status } : {}),
    });
    if (result.idle) return skip('the current step does not handle this event');
    if (!extra.silent) this.#left(key, session, written, now, false);
    reportFailure(this.#o.logger, key, flow, result);
    this.#remember(written, flow, result.machineSnapshot);
    return ranOf(result, written);
  }

  #start(
    key: string,
    prior: CachedSession | undefined,
    trigger: FlowInput['trigger'],
    meta: EventMeta,
    now: number,
    callback?: Callback,
    flow = findFlowToStart(this.#o.flows.current(), trigger),
  ): Ran | Skipped {
    if (!flow) return skip('no running session, and no flow trigger matches');
    const result = step(
      flow,
      { revision: prior?.row.revision ?? 0, stepInstance: prior?.row.stepInstance ?? 0 },
      { type: 'start', input: { trigger, meta: withWaiting(meta, this.#o.handoffWaiting?.()) } },
      this.#stepOptions(key, callback),
    );
    const written = this.#plan.write({ conversationKey: key, prior, flow, result, meta, started: true, now });
    this.#left(key, prior, written, now, true);
    reportFailure(this.#o.logger, key, flow, result);
    this.#remember(written, flow, result.machineSnapshot);
    return ranOf(result, written);
  }

  /** Tells the operators when the event took the person away from an open request (handoff-left.ts). */
  #left(
    key: string,
    prior: Maybe<CachedSession>,
    written: Maybe<WrittenSession>,
    now: number,
    edit: boolean,
  ) {
    tellOperatorsLeft(this.#plan, key, prior, written, this.#o.flows.current(), now, this.#sign, edit);
  }

  #remember(written: WrittenSession | undefined, flow: FlowDefinition, snapshot: AnyMachineSnapshot): void {
    if (written) this.#written = { ...written, machine: { flow, snapshot } };
  }

  #stepOptions(key: string, callback: Callback | undefined): StepOptions {
    return { conversationKey: key, sign: this.#sign, ...(callback ? { callback } : {}) };
  }
}
