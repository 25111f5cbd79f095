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
  HANDOFF_EVENTS,
  type HandoffNotice,
} from '../../../engine/step/contract.ts';
import type { BuiltinTextKey } from '../../builtin-texts.ts';
import type { SayText } from '../../inputs.ts';
import type { Enqueue, FlowContext, StepEntry } from '../../machine-context.ts';
import { textsFor } from '../../render.ts';
import type { KindOf } from '../contract.ts';
import type { FlowFile } from '../steps.ts';
import type { HandoffStep } from './schema.ts';

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

export type Operator = { id?: number; name?: string };

/**
 * The person's place in the operators' chat's queue: the requests nobody took yet (counted from the
 * store before the event, lane/handoff-queue.ts) and theirs.
 */
export function placeOf(event: unknown, chat: number): number {
  const e = event as { meta?: EventMeta; input?: { meta?: EventMeta } };
  const waiting = (e.meta ?? e.input?.meta)?.handoffWaiting?.[String(chat)];
  return (typeof waiting === 'number' && waiting > 0 ? waiting : 0) + 1;
}
/**
 * `vars.handoff`: the request while the person is at the step. Untaken it is exactly `{ open: true }`: the
 * queue's partial index reads that text (store/handoff-queue.ts), so nothing else goes in it.
 */
export type HandoffVars = { open?: boolean; operator?: Operator };

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
export function opsText(
  say: HandoffNeeds['say'],
  e: StepEntry,
  c: FlowContext,
  builtin: BuiltinTextKey,
  args: Record<string, string> = {},
) {
  const { locale: _person, ...vars } = c.vars;
  return say(e, { vars } as unknown as FlowContext, { builtin, args });
}

export const opName = (o: Operator | undefined) => o?.name ?? `operator ${o?.id ?? '?'}`;

/** The request as the operators' chat shows it: who asks, why, the summary, and who took it. */
export function requestText(say: HandoffNeeds['say'], e: StepEntry, c: FlowContext, key: string): string {
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

const NOTICES = {
  waiting: 'handoff-left-waiting',
  taken: 'handoff-left-taken',
  gone: 'handoff-gone',
  closed: 'handoff-closed',
  'closed-button': 'handoff-closed-button',
} as const satisfies Record<HandoffNotice, string>;

/** The engine's view of a flow's `handoff:` (FlowDefinition.handoff), with its notices to the operators. */
export function handoffDefinition(
  flow: FlowFile,
  root: StepEntry,
  kindOf: KindOf,
): Pick<FlowDefinition, 'handoff'> {
  if (!flow.handoff) return {};
  const { say } = textsFor(flow);
  return {
    handoff: {
      operatorsChat: flow.handoff.operators_chat,
      steps: Object.entries(flow.steps)
        .filter(([, s]) => kindOf(s).withOperators)
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
