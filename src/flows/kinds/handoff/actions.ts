/**
 * The actions and guards of `handoff` steps (steps.ts): the request sent and kept on entering and
 * closed on leaving, the conversation between the person and the operator who took it, and its end (done,
 * or withdrawn when nobody took it in time).
 */
import type { Effect, FlowEvent } from '../../../engine/step/contract.ts';
import { durationMs } from '../../../engine/step/durations.ts';
import { HANDOFF_REQUEST_REF, handoffKeyboard } from '../../../engine/step/handoff-lines.ts';
import type { BuiltinTextKey } from '../../builtin-texts.ts';
import {
  type Args,
  type Enqueue,
  type FlowContext,
  flowAction,
  flowGuard,
  nowOf,
  type StepEntry,
  type StepParams,
} from '../../machine-context.ts';
import { withinHours } from '../../schema-handoff.ts';
import type { HandoffStep } from './schema.ts';
import {
  type HandoffNeeds,
  type HandoffVars,
  handoffTimer,
  handoffWaitOf,
  type Operator,
  opName,
  opsText,
  placeOf,
  requestText,
  resendable,
} from './steps.ts';

/** The person who wrote: their conversation and their name. */
function personOf(event: FlowEvent) {
  const meta = (event as { meta?: { conversation?: string; userId?: number } }).meta;
  const sender =
    event.type === 'message' || event.type === 'command'
      ? (event.message as { sender?: { name?: string } }).sender
      : undefined;
  return { key: meta?.conversation ?? '', name: sender?.name ?? `user ${meta?.userId ?? '?'}` };
}

/** An operators' chat event's payload. */
const payloadOf = (event: FlowEvent) =>
  (event.type === 'event' ? (event.payload ?? {}) : {}) as Record<string, unknown> & {
    operator?: Operator;
  };

const keyOf = (event: FlowEvent) => String((event.meta as { conversation?: string }).conversation ?? '');

/** What the handoff actions share: the step and its settings, the operators' texts, lines and buttons. */
function handoffKit({ entry, say, effect }: HandoffNeeds) {
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
  return {
    say,
    effect: effect as (enqueue: Enqueue, effect: Effect) => void,
    of,
    api,
    ops,
    line,
    done,
    closed,
  };
}

type HandoffKit = ReturnType<typeof handoffKit>;

/** The request: sent on entering (or the step closed), its message kept, closed on leaving. */
function requestActions({ say, effect, of, api, ops, closed }: HandoffKit) {
  return {
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
  };
}

/** While the person waits or talks: relayed messages, the first Take, the operator's replies and `/set`. */
function conversationActions({ say, effect, of, api, ops, line, done }: HandoffKit) {
  return {
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
  };
}

/** The end: the operator's `/done`, or the request withdrawn when nobody took it in time. */
function closingActions({ say, effect, of, api, ops, line, closed }: HandoffKit) {
  return {
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
  };
}

/** The actions and guards of `handoff` steps. */
export function handoffParts(needs: HandoffNeeds) {
  const k = handoffKit(needs);
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
    actions: { ...requestActions(k), ...conversationActions(k), ...closingActions(k) },
  };
}
