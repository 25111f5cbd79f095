/**
 * A person who leaves a handoff with their request open (docs/handoff.md), however they leave: a command,
 * a goto, Start, another flow, stopping the bot or removing the dialog. The operators' chat is told once,
 * in the session's own write; an operator's Take or reply that comes later is answered that the person
 * left, and nothing reaches the person. The queue needs nothing: it counts active sessions at a handoff
 * step, and the session is no longer one. Pure: calls are recorded in the write plan.
 */
import type { WritePlan, WrittenSession } from '../commit/write-plan.ts';
import { type FlowDefinition, HANDOFF_EVENTS, type HandoffNotice } from '../step/contract.ts';
import type { PlannedCall } from '../step/effects.ts';
import { type HandoffButton, handoffKeyboard, handoffPayload } from '../step/handoff-lines.ts';
import type { StepOptions } from '../step/step.ts';
import type { CachedSession } from './session-cache.ts';

type Vars = Record<string, unknown> & {
  handoff?: { open?: unknown; operator?: unknown; done?: unknown };
};
type Context = { vars?: Vars; handoffClosed?: boolean; handoffMessage?: unknown };
type Definition = NonNullable<FlowDefinition['handoff']>;
/** Signs a button payload for a step instance of a conversation (the planner's signer). */
export type Sign = StepOptions['sign'];

/** The machine context of a session, from its machine snapshot when this process computed it. */
function contextOf(session: { machine?: CachedSession['machine']; row: { snapshot: string } }) {
  return (session.machine?.snapshot.context ??
    (JSON.parse(session.row.snapshot) as { context?: unknown }).context) as Context | undefined;
}
const varsOf = (session: CachedSession): Vars | undefined => contextOf(session)?.vars;

/** The 🔒 button of a line about a closed request, signed for the request's instance. */
function closedKeyboard(handoff: Definition, sign: Sign, key: string, instance: number, vars?: Vars) {
  const what: HandoffButton = 'closed';
  const kb = handoffKeyboard(handoff.notice?.('closed-button', vars, key) ?? '🔒', what, key);
  const button = kb.payload.buttons[0]![0]!;
  button.payload = sign(instance, handoffPayload(what, key), key);
  return kb;
}

/** The request `session` has open at a handoff step of `flows`, if it has one. */
function openRequest(session: CachedSession | undefined, flows: readonly FlowDefinition[]) {
  const row = session?.row;
  if (!session || row?.status !== 'active') return undefined;
  const flow = flows.find((f) => f.id === row.flowId);
  if (!flow?.handoff?.steps.some((s) => JSON.stringify(s) === row.stateValue)) return undefined;
  const vars = varsOf(session);
  const handoff = vars?.handoff;
  if (handoff?.open !== true || handoff.done === true) return undefined;
  const step = JSON.parse(row.stateValue) as string;
  const mid = contextOf(session)?.handoffMessage;
  return { handoff: flow.handoff, vars, taken: handoff.operator !== undefined, step, mid };
}

/** Whether `written` (the session after the event) closed its request itself (the operator's /done, the timeout). */
function closedByStep(prior: CachedSession, written: WrittenSession): boolean {
  return written.row.flowId === prior.row.flowId && contextOf(written)?.handoffClosed === true;
}

const send = (chat: number, text: string, keyboard?: unknown): PlannedCall => ({
  kind: 'api',
  op: 'sendMessage',
  args: { chat_id: chat, text, ...(keyboard ? { attachments: [keyboard] } : {}) },
  orderKey: `chat:${chat}`,
  chatId: chat,
  priority: 'reply',
});

/**
 * Records telling the operators' chat that the person of `key` left, when `prior` had a request open and
 * `written` (the same conversation after the event) is no longer at that step, and did not close it itself.
 * `edit`: the step's own exit did not run (another flow took over, the session stopped), so the request's
 * Take (or Done) button is taken off here.
 */
export function tellOperatorsLeft(
  plan: WritePlan,
  key: string,
  prior: CachedSession | undefined,
  written: WrittenSession | undefined,
  flows: readonly FlowDefinition[],
  now: number,
  sign: Sign,
  edit: boolean,
): void {
  const request = openRequest(prior, flows);
  if (!request || !prior || !written || written === prior) return;
  const a = prior.row;
  const b = written.row;
  const stayed =
    b.status === 'active' &&
    b.flowId === a.flowId &&
    b.stateValue === a.stateValue &&
    b.stepInstance === a.stepInstance;
  if (stayed || closedByStep(prior, written)) return;
  const what: HandoffNotice = request.taken ? 'taken' : 'waiting';
  const { handoff, vars } = request;
  const text = handoff.notice?.(what, vars, key) ?? `${key} left`;
  const closed = closedKeyboard(handoff, sign, key, a.stepInstance, vars);
  const chat = handoff.operatorsChat;
  plan.call(key, b.revision, 0, send(chat, text, closed), now, `handoff-left:${key}:${b.revision}`);
  const { mid } = request;
  if (!edit || typeof mid !== 'string' || !handoff.request) return;
  const edited: PlannedCall = {
    kind: 'api',
    op: 'editMessage',
    args: { message_id: mid, text: handoff.request(request.step, vars, key), attachments: [closed] },
    orderKey: `chat:${chat}`,
    chatId: chat,
    priority: 'reply',
  };
  plan.call(key, b.revision, 1, edited, now, `handoff-left-edit:${key}:${b.revision}`);
}

const OPERATOR_EVENTS: ReadonlySet<string> = new Set(Object.values(HANDOFF_EVENTS));

/**
 * Records the answer to an operator's event (`name`, `payload`) that reached no handoff step of the
 * person's: the person left, or the request was closed (timed out, done). A press is answered with a
 * notification, anything else in the operators' chat. Returns false (nothing recorded) when `name` is
 * not an operators' event, or the person is still at their request.
 */
export function answerPersonGone(
  plan: WritePlan,
  key: string,
  event: { name: string; payload: unknown; rowId: number },
  session: CachedSession | undefined,
  flows: readonly FlowDefinition[],
  now: number,
  sign: Sign,
): boolean {
  if (!OPERATOR_EVENTS.has(event.name)) return false;
  const stale = fromEarlierRequest(event.payload, session, flows);
  // Still at their request: the step had nothing to do with it (an empty reply, a bad /set); a line about
  // a closed request (🔒) is answered all the same.
  if (!stale && event.name !== HANDOFF_EVENTS.closed && openRequest(session, flows)) return false;
  const x = (event.payload ?? {}) as { chat?: unknown; callbackId?: unknown; instance?: unknown };
  const chat = typeof x.chat === 'number' ? x.chat : undefined;
  const own = flows.find((f) => f.id === session?.row.flowId)?.handoff;
  const handoff =
    (own && (chat === undefined || own.operatorsChat === chat) ? own : undefined) ??
    flows.find((f) => f.handoff && (chat === undefined || f.handoff.operatorsChat === chat))?.handoff;
  if (!handoff) return true;
  const context = session ? contextOf(session) : undefined;
  const vars = context?.vars;
  // The step closed it (the timeout, /done) and the person may still be there: "closed", not "left".
  const closed = stale || context?.handoffClosed === true;
  const text = handoff.notice?.(closed ? 'closed' : 'gone', vars, key) ?? `${key} left`;
  const revision = session?.row.revision ?? 0;
  const instance = typeof x.instance === 'number' ? x.instance : (session?.row.stepInstance ?? 0);
  const to = chat ?? handoff.operatorsChat;
  const line = send(to, text, closedKeyboard(handoff, sign, key, instance, vars));
  if (typeof x.callbackId === 'string') {
    const answer: PlannedCall = {
      kind: 'api',
      op: 'answerCallback',
      args: { callback_id: x.callbackId, notification: text },
      orderKey: `cb:${x.callbackId}`,
      chatId: to,
      priority: 'callback',
    };
    plan.call(key, revision, 0, answer, now, `handoff-gone:${event.rowId}`);
    // A notification alone is not displayed (docs/sandbox.md): the same line follows in the chat.
    plan.call(key, revision, 1, line, now, `handoff-gone-shown:${event.rowId}`);
  } else plan.call(key, revision, 0, line, now, `handoff-gone:${event.rowId}`);
  return true;
}

/**
 * Whether an operator's event comes from the buttons of an earlier request of a person who has one open
 * again (a Take, a Done or a reply on the messages of a request closed since): the buttons carry the step
 * instance they were drawn for, and a request keeps one instance from start to end. Such an event is
 * answered that its request is closed; it must not take, end or write to the new one.
 */
export function fromEarlierRequest(
  payload: unknown,
  session: CachedSession | undefined,
  flows: readonly FlowDefinition[],
): boolean {
  const instance = (payload as { instance?: unknown } | null)?.instance;
  return (
    typeof instance === 'number' &&
    session?.row.stepInstance !== instance &&
    openRequest(session, flows) !== undefined
  );
}
