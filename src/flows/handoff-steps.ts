/**
 * The `handoff` step (docs/handoff.md): the person's side of handing a conversation to operators. On entry
 * the request goes to the operators' chat with a "Take" button; while the step waits, what the person sends
 * is relayed there, and what the operators' chat turns into (events for this conversation, engine/lane/
 * operators.ts) moves it: the first "Take" wins (events are handled in order, so a race has one winner and
 * the others are told), replies are relayed to the person, `/set` sets variables, `/done` returns to
 * `return_to`. A timer withdraws a request nobody took; outside the opening hours `out_of_hours` is taken.
 */
import {
  type Effect,
  type EventMeta,
  type FlowDefinition,
  type FlowEvent,
  HANDOFF_EVENTS,
  type HandoffNotice,
} from '../engine/step/contract.ts';
import { durationMs } from '../engine/step/durations.ts';
import { HANDOFF_REQUEST_REF, handoffKeyboard } from '../engine/step/handoff-lines.ts';
import type { BuiltinTextKey } from './builtin-texts.ts';
import type { SayText } from './inputs.ts';
import {
  type Args,
  type Enqueue,
  type FlowContext,
  flowAction,
  flowGuard,
  nowOf,
  type StepEntry,
  type StepParams,
} from './machine-context.ts';
import { renderingFor } from './render.ts';
import type { FlowFile, HandoffStep } from './schema.ts';
import { withinHours } from './schema-handoff.ts';

type Act = (
  type: string,
  params: Record<string, unknown>,
) => { type: string; params: Record<string, unknown> };

/** The timer that withdraws a request nobody took. */
export const handoffTimer = (key: string) => `${key}:handoff`;

const DEFAULT_WAIT = '15m';

/** The wait of a step: its timeout's, the flow's settings', else 15 minutes. */
export function handoffWaitOf(flow: FlowFile, step: HandoffStep): string {
  return step.timeout?.after ?? flow.handoff?.timeout ?? DEFAULT_WAIT;
}

/** The state of a `handoff` step. */
export function handoffState(key: string, step: HandoffStep, enter: unknown[], leave: unknown[], act: Act) {
  const s = { step: key };
  const ev = (name: string) => act('event', { name });
  return {
    entry: [...enter, act('handoffEnter', s)],
    // Whatever the way out, the request's state goes with the step (docs/flows.md, built-in variables).
    exit: [...leave, act('handoffLeave', s)],
    ...(step.out_of_hours
      ? { always: [{ guard: act('handoffClosed', s), target: step.out_of_hours.goto }] }
      : {}),
    on: {
      'effect.done': [{ guard: act('handoffRequestSent', s), actions: [act('handoffKeepRequest', s)] }],
      message: [{ actions: [act('handoffRelay', s)] }],
      event: [
        { guard: ev(HANDOFF_EVENTS.take), actions: [act('handoffTake', s)] },
        { guard: ev(HANDOFF_EVENTS.message), actions: [act('handoffToPerson', s)] },
        { guard: ev(HANDOFF_EVENTS.set), actions: [act('handoffSet', s)] },
        { guard: ev(HANDOFF_EVENTS.done), target: step.return_to, actions: [act('handoffDone', s)] },
      ],
      ...(step.timeout
        ? {
            timer: [
              {
                guard: act('timer', { name: handoffTimer(key) }),
                target: step.timeout.goto,
                actions: [act('handoffTimeout', s)],
              },
            ],
          }
        : {}),
    },
  };
}

type Operator = { id?: number; name?: string };

/**
 * The person's place in the operators' chat's queue: the requests nobody took yet (counted from the
 * store before the event, lane/handoff-queue.ts) and theirs.
 */
function placeOf(event: unknown, chat: number): number {
  const e = event as { meta?: EventMeta; input?: { meta?: EventMeta } };
  const waiting = (e.meta ?? e.input?.meta)?.handoffWaiting?.[String(chat)];
  return (typeof waiting === 'number' && waiting > 0 ? waiting : 0) + 1;
}
/**
 * `vars.handoff`: the request while the person is at the step. Untaken it is exactly `{ open: true }`: the
 * queue's partial index reads that text (store/handoff-queue.ts), so nothing else goes in it.
 */
type HandoffVars = { open?: boolean; operator?: Operator };

const MEDIA = new Set(['image', 'video', 'audio', 'file', 'sticker']);

/** Attachments of a received message as a new message can carry them again (by token, url or code). */
export function resendable(attachments: unknown): unknown[] {
  if (!Array.isArray(attachments)) return [];
  return attachments.flatMap((a): unknown[] => {
    const { type, payload } = (a ?? {}) as { type?: string; payload?: Record<string, unknown> };
    if (!type || !MEDIA.has(type) || !payload) return [];
    if (type === 'sticker') return payload.code ? [{ type, payload: { code: payload.code } }] : [];
    if (typeof payload.token === 'string') return [{ type, payload: { token: payload.token } }];
    if (typeof payload.url === 'string') return [{ type, payload: { url: payload.url } }];
    return [];
  });
}

/** A built-in text for the operators' chat: in the flow's default locale, not the person's. */
function opsText(
  say: HandoffNeeds['say'],
  e: StepEntry,
  c: FlowContext,
  builtin: BuiltinTextKey,
  args: Record<string, string> = {},
) {
  const { locale: _person, ...vars } = c.vars;
  return say(e, { vars } as unknown as FlowContext, { builtin, args });
}

const opName = (o: Operator | undefined) => o?.name ?? `operator ${o?.id ?? '?'}`;

/** The request as the operators' chat shows it: who asks, why, the summary, and who took it. */
function requestText(say: HandoffNeeds['say'], e: StepEntry, c: FlowContext, key: string): string {
  const step = e.step as HandoffStep;
  const taken = (c.vars.handoff as HandoffVars | undefined)?.operator;
  const person = String(c.vars.handoff_person ?? key);
  return [
    opsText(say, e, c, 'handoff-request', { person, conversation: key }),
    ...(step.reason ? [opsText(say, e, c, 'handoff-reason', { reason: say(e, c, step.reason) })] : []),
    ...(step.summary ? [say(e, c, step.summary)] : []),
    ...(taken ? ['', opsText(say, e, c, 'handoff-taken-by', { operator: opName(taken) })] : []),
  ].join('\n');
}

/** What the actions need from the compiled flow. */
export interface HandoffNeeds {
  entry(key: string): StepEntry;
  say(e: StepEntry, c: FlowContext, text: SayText | string): string;
  effect(enqueue: Enqueue, effect: Effect): void;
}

/** The actions and guards of `handoff` steps. */
export function handoffParts({ entry, say, effect }: HandoffNeeds) {
  const of = (p: StepParams) => {
    const e = entry(p.step);
    const step = e.step as HandoffStep;
    const settings = e.flow.handoff;
    if (!settings)
      throw new Error(`step "${e.id}": a handoff step needs the flow's handoff: { operators_chat }`);
    return { e, step, chat: settings.operators_chat, hours: settings.hours };
  };
  const api = (enqueue: Enqueue, op: string, args: Record<string, unknown>) =>
    effect(enqueue, { kind: 'api', op, args });
  const ops = (e: StepEntry, c: FlowContext, builtin: BuiltinTextKey, args: Record<string, string> = {}) =>
    opsText(say, e, c, builtin, args);
  /** A line in the operators' chat, with the button that routes a reply to it (engine/step/handoff-lines.ts). */
  const line = (enqueue: Enqueue, chat: number, text: string, kb: ReturnType<typeof handoffKeyboard>) =>
    api(enqueue, 'sendMessage', { chat_id: chat, text, attachments: [kb] });
  const done = (e: StepEntry, c: FlowContext, key: string) =>
    handoffKeyboard(ops(e, c, 'handoff-done'), 'done', key);
  const closed = (e: StepEntry, c: FlowContext, key: string) =>
    handoffKeyboard(ops(e, c, 'handoff-closed-button'), 'closed', key);
  const personOf = (event: FlowEvent) => {
    const meta = (event as { meta?: { conversation?: string; userId?: number } }).meta;
    const sender =
      event.type === 'message' || event.type === 'command'
        ? (event.message as { sender?: { name?: string } }).sender
        : undefined;
    return { key: meta?.conversation ?? '', name: sender?.name ?? `user ${meta?.userId ?? '?'}` };
  };
  const payloadOf = (event: FlowEvent) =>
    (event.type === 'event' ? (event.payload ?? {}) : {}) as Record<string, unknown> & {
      operator?: Operator;
    };
  const keyOf = (event: FlowEvent) => String((event.meta as { conversation?: string }).conversation ?? '');

  return {
    guards: {
      // Decided once, on entering (handoffEnter): hours that end while someone waits close nothing.
      handoffClosed: flowGuard(
        ({ context }: { context: FlowContext }) =>
          (context.vars.handoff as { open?: boolean } | undefined)?.open === false,
      ),
      /** The request's send came back: its message id is kept, to take its buttons off when it closes. */
      handoffRequestSent: flowGuard(
        ({ event }: { event: FlowEvent }) =>
          event.type === 'effect.done' && event.ref === HANDOFF_REQUEST_REF,
      ),
    },
    actions: {
      handoffEnter: flowAction(({ context, event, enqueue }: Args, p: StepParams) => {
        const { e, step, chat, hours } = of(p);
        const now = nowOf(event);
        // A new request: nobody took it yet, and the step has not closed it.
        const { handoff_operator: _earlier, ...before } = context.vars;
        if (step.out_of_hours && !withinHours(hours, now)) {
          enqueue.assign({ vars: { ...before, handoff: { open: false } } });
          if (step.out_of_hours.say)
            api(enqueue, 'sendMessage', { text: say(e, context, step.out_of_hours.say) });
          return;
        }
        const person = personOf(event);
        const wait = handoffWaitOf(e.flow, step);
        const vars = {
          ...before,
          handoff: { open: true },
          handoff_person: person.name,
          handoff_wait: wait,
          handoff_place: placeOf(event, chat),
        };
        enqueue.assign({ vars, handoffClosed: undefined, handoffMessage: undefined });
        const c = { ...context, vars };
        api(enqueue, 'sendMessage', {
          text: say(e, c, step.say ?? { builtin: 'handoff-wait', args: { wait } }),
        });
        effect(enqueue, {
          kind: 'api',
          op: 'sendMessage',
          args: {
            chat_id: chat,
            text: requestText(say, e, c, person.key),
            attachments: [handoffKeyboard(ops(e, c, 'handoff-take'), 'take', person.key)],
          },
          ref: HANDOFF_REQUEST_REF,
        });
        if (step.timeout)
          effect(enqueue, { kind: 'timer.arm', name: handoffTimer(p.step), delayMs: durationMs(wait) });
      }),
      handoffKeepRequest: flowAction(({ context, event, enqueue }: Args) => {
        const result = event.type === 'effect.done' ? event.result : undefined;
        const mid = (result as { message?: { body?: { mid?: unknown } } } | undefined)?.message?.body?.mid;
        if (typeof mid === 'string' && (context.vars.handoff as HandoffVars | undefined)?.open === true)
          enqueue.assign({ handoffMessage: mid });
      }),
      /** Leaving the step, however: `handoff` goes, and the request loses its Take (or Done) button. */
      handoffLeave: flowAction(({ context, event, enqueue }: Args, p: StepParams) => {
        const { handoff, ...vars } = context.vars as { handoff?: HandoffVars };
        const mid = context.handoffMessage;
        if (handoff === undefined && mid === undefined) return;
        enqueue.assign({ vars, handoffMessage: undefined });
        if (handoff?.open !== true || mid === undefined) return;
        const { e } = of(p);
        const key = keyOf(event);
        api(enqueue, 'editMessage', {
          message_id: mid,
          text: requestText(say, e, context, key),
          attachments: [closed(e, context, key)],
        });
      }),
      handoffRelay: flowAction(({ context, event, enqueue }: Args, p: StepParams) => {
        if (event.type !== 'message') return;
        const { e, chat } = of(p);
        const person = personOf(event);
        const taken = (context.vars.handoff as HandoffVars | undefined)?.operator;
        api(enqueue, 'sendMessage', {
          chat_id: chat,
          text: `${context.vars.handoff_person ?? person.name} (${person.key})${taken ? ` → ${opName(taken)}` : ''}: ${event.text ?? ''}`.trim(),
          attachments: [...resendable(event.attachments), done(e, context, person.key)],
        });
      }),
      handoffTake: flowAction(({ context, event, enqueue }: Args, p: StepParams) => {
        const { e, step, chat } = of(p);
        const x = payloadOf(event);
        const handoff = context.vars.handoff as HandoffVars | undefined;
        const key = keyOf(event);
        const callback = typeof x.callbackId === 'string' ? { callback_id: x.callbackId } : undefined;
        if (handoff?.operator) {
          // A notification alone is not displayed: the line follows in the chat.
          const already = ops(e, context, 'handoff-already-taken', { operator: opName(handoff.operator) });
          if (callback) api(enqueue, 'answerCallback', { ...callback, notification: already });
          line(enqueue, chat, already, done(e, context, key));
          return;
        }
        const operator = x.operator ?? {};
        const vars = {
          ...context.vars,
          handoff: { ...handoff, open: true, operator },
          handoff_operator: opName(operator),
        };
        enqueue.assign({ vars });
        effect(enqueue, { kind: 'timer.cancel', name: handoffTimer(p.step) });
        const c = { ...context, vars };
        const taken = { text: requestText(say, e, c, key), attachments: [done(e, c, key)] };
        // The answer carries the request's edit: with a message, its notification is displayed.
        if (callback)
          api(enqueue, 'answerCallback', {
            ...callback,
            notification: ops(e, context, 'handoff-you-took'),
            message: taken,
          });
        else if (context.handoffMessage)
          api(enqueue, 'editMessage', { message_id: context.handoffMessage, ...taken });
        api(enqueue, 'sendMessage', {
          text: say(e, c, step.joined ?? { builtin: 'handoff-joined', args: { operator: opName(operator) } }),
        });
      }),
      handoffToPerson: flowAction(({ event, enqueue }: Args) => {
        const x = payloadOf(event);
        const attachments = resendable(x.attachments);
        if (!x.text && attachments.length === 0) return;
        api(enqueue, 'sendMessage', {
          ...(typeof x.text === 'string' && x.text ? { text: x.text } : {}),
          ...(attachments.length ? { attachments } : {}),
        });
      }),
      handoffSet: flowAction(({ context, event, enqueue }: Args) => {
        const x = payloadOf(event);
        if (typeof x.name !== 'string' || !/^[A-Za-z][A-Za-z0-9_]*$/.test(x.name)) return;
        enqueue.assign({ vars: { ...context.vars, [x.name]: x.value ?? null } });
      }),
      // After the step's exit (handoffLeave): `vars.handoff` is gone; `handoffClosed` says the step closed it.
      handoffDone: flowAction(({ context, event, enqueue }: Args, p: StepParams) => {
        const { e, chat } = of(p);
        const x = payloadOf(event);
        effect(enqueue, { kind: 'timer.cancel', name: handoffTimer(p.step) });
        if (typeof x.callbackId === 'string') api(enqueue, 'answerCallback', { callback_id: x.callbackId });
        const key = keyOf(event);
        const back = ops(e, context, 'handoff-back', { conversation: key, operator: opName(x.operator) });
        line(enqueue, chat, back, closed(e, context, key));
        enqueue.assign({ handoffClosed: true });
      }),
      handoffTimeout: flowAction(({ context, event, enqueue }: Args, p: StepParams) => {
        const { e, step, chat } = of(p);
        const person = String(context.vars.handoff_person ?? '');
        // Closed by the step itself: the engine tells the operators only of a person who left (lane/handoff-left.ts).
        enqueue.assign({ handoffClosed: true });
        const withdrawn = ops(e, context, 'handoff-withdrawn', { person });
        line(enqueue, chat, withdrawn, closed(e, context, keyOf(event)));
        if (step.timeout?.say) api(enqueue, 'sendMessage', { text: say(e, context, step.timeout.say) });
      }),
    },
  };
}

const NOTICES = {
  waiting: 'handoff-left-waiting',
  taken: 'handoff-left-taken',
  gone: 'handoff-gone',
  closed: 'handoff-closed',
  'closed-button': 'handoff-closed-button',
} as const satisfies Record<HandoffNotice, string>;

/** The engine's view of a flow's `handoff:` (FlowDefinition.handoff), with its notices to the operators. */
export function handoffDefinition(flow: FlowFile, root: StepEntry): Pick<FlowDefinition, 'handoff'> {
  if (!flow.handoff) return {};
  const { say } = renderingFor(flow, false, '');
  return {
    handoff: {
      operatorsChat: flow.handoff.operators_chat,
      steps: Object.entries(flow.steps)
        .filter(([, s]) => s.type === 'handoff')
        .map(([id]) => id),
      notice(what, vars, conversation) {
        const { locale: _person, ...rest } = vars ?? {};
        const person = typeof rest.handoff_person === 'string' ? rest.handoff_person : conversation;
        // Operators read the flow's default locale, not the person's.
        const c = { vars: rest } as unknown as FlowContext;
        return say(root, c, { builtin: NOTICES[what], args: { person, conversation } });
      },
      request(step, vars, conversation) {
        const e = { ...root, key: step, id: step, step: flow.steps[step]! };
        return requestText(say, e, { vars: vars ?? {} } as unknown as FlowContext, conversation);
      },
    },
  };
}
