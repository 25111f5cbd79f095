/**
 * Turns the effects a machine emitted into planned outbox calls and timer changes, purely: checks each
 * operation against the Bot API table, fills in the conversation's chat (and the pressed callback or
 * message) where the flow left them out, signs callback buttons with the step instance, and decides the
 * order key (calls with one key are sent one at a time, in order) and the service class of each call.
 */

import { OPERATIONS, type OperationSpec } from '../../client/operations.ts';
import { priorityOfOp } from '../../client/scheduler/priorities.ts';
import type { Priority } from '../../client/scheduler/types.ts';
import { BotflowError } from '../../errors/index.ts';
import type { Effect, EventMeta, StartTaskEffect } from './contract.ts';
import { type TagChange, tagChange } from './tags.ts';

/** One API call a committed step will make. */
export interface PlannedCall {
  kind: 'api' | 'upload_and_send';
  /** Operation name; `sendMessage` for upload-and-send. */
  op: string;
  /** The argument object; for upload-and-send `{media, message, chat_id | user_id}`. */
  args: Record<string, unknown>;
  ref?: string;
  /** Calls sharing an order key are sent one after the other, in commit order. */
  orderKey: string;
  /** The chat the call counts against, for the per-chat rate limit. */
  chatId?: number;
  priority: Priority;
}

/** A durable timer to arm (absolute deadline) or cancel. */
export type TimerChange = { kind: 'arm'; name: string; dueAt: number } | { kind: 'cancel'; name: string };

/** A task to start (the step's task outbox row) or a running one to cancel. */
export type TaskChange =
  | {
      kind: 'start';
      task: string;
      input: unknown;
      ref: string;
      policy: NonNullable<StartTaskEffect['policy']>;
      /** Where "typing…" is shown while it runs. */
      chatId?: number;
    }
  | { kind: 'cancel'; ref: string };

/** An effect that cannot be turned into a call: the flow asked for something impossible. */
export class EffectError extends BotflowError {
  override name = 'EffectError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_EFFECT_INVALID', message, options);
  }
}

/** What planning needs to know about the step. */
export interface PlanContext {
  meta: EventMeta;
  /** The step instance keyboards drawn by this step belong to. */
  stepInstance: number;
  /** Signs one button payload for `stepInstance` in `conversationKey`'s conversation (see buttons.ts). */
  sign(instance: number, payload: string, conversationKey: string): string;
  /** The pressed button's callback and message, when the event is a press. */
  callback?: { id: string; messageId?: string; chatId?: number };
}

type Args = Record<string, unknown>;

type SigningContext = Pick<PlanContext, 'sign' | 'stepInstance'> & { conversationKey: string };

function record(value: unknown): Args | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Args) : undefined;
}

/** Signs every callback button payload in `attachments` (a NewMessageBody's), returning new objects. */
function signKeyboards(attachments: unknown, ctx: SigningContext, where: string): unknown {
  if (!Array.isArray(attachments)) return attachments;
  return attachments.map((attachment) => {
    const a = record(attachment);
    if (a?.type !== 'inline_keyboard') return attachment;
    const buttons = record(a.payload)?.buttons;
    if (!Array.isArray(buttons)) return attachment;
    const rows = buttons.map((row, r) =>
      Array.isArray(row)
        ? row.map((button, c) => {
            const b = record(button);
            if (b?.type !== 'callback') return button;
            if (typeof b.payload !== 'string') {
              throw new EffectError(
                `${where}: callback button at row ${r + 1}, column ${c + 1} has no payload`,
              );
            }
            return { ...b, payload: ctx.sign(ctx.stepInstance, b.payload, ctx.conversationKey) };
          })
        : row,
    );
    return { ...a, payload: { ...record(a.payload), buttons: rows } };
  });
}

function signMessageBody(body: unknown, ctx: SigningContext, where: string): unknown {
  const b = record(body);
  if (!b || !('attachments' in b)) return body;
  return { ...b, attachments: signKeyboards(b.attachments, ctx, where) };
}

const pathParamsOf = new WeakMap<OperationSpec, string[]>();

function pathParams(spec: OperationSpec): string[] {
  let params = pathParamsOf.get(spec);
  if (!params) {
    params = [...spec.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    pathParamsOf.set(spec, params);
  }
  return params;
}

function takesChat(spec: OperationSpec): boolean {
  return pathParams(spec).includes('chat_id') || (spec.query ?? []).includes('chat_id');
}

function fillTarget(op: string, spec: OperationSpec, input: Args, ctx: PlanContext, where: string): Args {
  const args: Args = { ...input };
  const chatId = ctx.meta.chatId ?? ctx.callback?.chatId;
  if (op === 'sendMessage') {
    if (args.chat_id === undefined && args.user_id === undefined) {
      if (chatId !== undefined) args.chat_id = chatId;
      else if (ctx.meta.userId !== undefined) args.user_id = ctx.meta.userId;
    }
  } else if (takesChat(spec) && args.chat_id === undefined && chatId !== undefined) {
    args.chat_id = chatId;
  }
  if (op === 'answerCallback' && args.callback_id === undefined && ctx.callback) {
    args.callback_id = ctx.callback.id;
  }
  if (
    (op === 'editMessage' || op === 'deleteMessage') &&
    args.message_id === undefined &&
    ctx.callback?.messageId
  ) {
    args.message_id = ctx.callback.messageId;
  }
  const missing = [...pathParams(spec), ...(op === 'answerCallback' ? ['callback_id'] : [])].filter(
    (name) => args[name] === undefined,
  );
  if (op === 'sendMessage' && args.chat_id === undefined && args.user_id === undefined)
    missing.push('chat_id');
  if ((op === 'editMessage' || op === 'deleteMessage') && args.message_id === undefined)
    missing.push('message_id');
  if (missing.length > 0) {
    throw new EffectError(
      `${where}: ${op} needs ${missing.join(', ')}, which the effect does not give and the event cannot supply` +
        (op === 'answerCallback' ? ' (only a button press has a callback to answer)' : ''),
    );
  }
  return args;
}

/** The class of a call in the one priority order (client/scheduler/types.ts `PRIORITIES`). */
const priorityOf = (op: string): Priority => priorityOfOp(op);

function numeric(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * The order key and rate-limit chat of a call: its target chat when it names one, else the chat of the
 * event (an edit or delete of a message in this conversation), else the conversation itself. Callback
 * answers have a key of their own: they never wait behind sends.
 */
function orderOf(
  op: string,
  args: Args,
  conversationKey: string,
  eventChat: number | undefined,
  eventUser?: number,
): { orderKey: string; chatId?: number } {
  // A send by user_id to the person of a dialog (positive chat id) goes to that dialog: one chat, one
  // per-chat budget and one order on the platform, not two.
  const sameDialog =
    numeric(args.chat_id) === undefined &&
    eventChat !== undefined &&
    eventChat > 0 &&
    eventUser !== undefined &&
    numeric(args.user_id) === eventUser;
  if (sameDialog) return { orderKey: `chat:${eventChat}`, chatId: eventChat };
  const chatId = numeric(args.chat_id) ?? numeric(args.user_id) ?? eventChat;
  const chat = chatId !== undefined ? { chatId } : {};
  if (op === 'answerCallback') return { orderKey: `cb:${String(args.callback_id)}`, ...chat };
  if (numeric(args.chat_id) === undefined && numeric(args.user_id) !== undefined) {
    return { orderKey: `user:${numeric(args.user_id)}`, ...chat };
  }
  return chatId !== undefined
    ? { orderKey: `chat:${chatId}`, chatId }
    : { orderKey: `conv:${conversationKey}` };
}

/** The longest sample of an unrecognised text the funnel keeps (characters). */
export const SAMPLE_CHARS = 200;

/** What planning a step's effects gives, filled in effect by effect. */
export interface Plan {
  calls: PlannedCall[];
  timers: TimerChange[];
  tasks: TaskChange[];
  rejected: number;
  unrecognised: string[];
  tags?: TagChange;
}

/** Plans one step's effects, in the order the machine emitted them. Throws EffectError for a bad effect. */
export function planEffects(effects: readonly Effect[], conversationKey: string, ctx: PlanContext): Plan {
  const plan: Plan = { calls: [], timers: [], tasks: [], rejected: 0, unrecognised: [] };
  const signing: SigningContext = { sign: ctx.sign, stepInstance: ctx.stepInstance, conversationKey };
  effects.forEach((effect, index) => {
    planEffect(plan, effect, `effect #${index + 1} (${describe(effect)})`, ctx, signing);
  });
  return plan;
}

/** Adds one effect (`where` names it in errors) to `plan`. */
function planEffect(
  plan: Plan,
  effect: Effect,
  where: string,
  ctx: PlanContext,
  signing: SigningContext,
): void {
  switch (effect?.kind) {
    case 'api':
      plan.calls.push(apiCall(effect, where, ctx, signing));
      return;
    case 'upload_and_send': {
      const target = fillTarget('sendMessage', OPERATIONS.sendMessage, {}, ctx, where);
      const args = {
        ...target,
        media: effect.media,
        message: signMessageBody(effect.message, signing, where),
      };
      plan.calls.push({
        kind: 'upload_and_send',
        op: 'sendMessage',
        args,
        ...(effect.ref !== undefined ? { ref: effect.ref } : {}),
        ...orderOf('sendMessage', args, signing.conversationKey, ctx.meta.chatId, ctx.meta.userId),
        priority: 'reply',
      });
      return;
    }
    case 'timer.arm': {
      if (!effect.name) throw new EffectError(`${where}: a timer needs a name`);
      if (!Number.isFinite(effect.delayMs) || effect.delayMs < 0) {
        throw new EffectError(`${where}: delayMs must be a finite number ≥ 0, got ${effect.delayMs}`);
      }
      plan.timers.push({ kind: 'arm', name: effect.name, dueAt: ctx.meta.now + Math.round(effect.delayMs) });
      return;
    }
    case 'timer.cancel':
      if (!effect.name) throw new EffectError(`${where}: a timer needs a name`);
      plan.timers.push({ kind: 'cancel', name: effect.name });
      return;
    case 'task.start':
      plan.tasks.push(taskStart(plan.tasks, effect, where, ctx));
      return;
    case 'task.cancel':
      if (!effect.ref) throw new EffectError(`${where}: cancelling a task needs its ref`);
      plan.tasks.push({ kind: 'cancel', ref: effect.ref });
      return;
    case 'input.rejected':
      plan.rejected += 1;
      return;
    case 'input.unrecognised':
      // An empty text is nothing typed: not counted.
      if (typeof effect.text === 'string' && effect.text.trim())
        plan.unrecognised.push([...effect.text].slice(0, SAMPLE_CHARS).join(''));
      return;
    case 'person.tags': {
      const change = tagChange(plan.tags, effect);
      if (typeof change === 'string') throw new EffectError(`${where}: ${change}`);
      plan.tags = change;
      return;
    }
    default:
      throw new EffectError(
        `${where}: unknown effect kind; expected api, upload_and_send, timer.arm, timer.cancel, task.start, task.cancel, input.rejected, input.unrecognised or person.tags`,
      );
  }
}

/** The call an `api` effect makes: a write operation of the Bot API, its target filled in, its keyboards signed. */
function apiCall(
  effect: Extract<Effect, { kind: 'api' }>,
  where: string,
  ctx: PlanContext,
  signing: SigningContext,
): PlannedCall {
  const spec: OperationSpec | undefined = Object.hasOwn(OPERATIONS, effect.op)
    ? OPERATIONS[effect.op as keyof typeof OPERATIONS]
    : undefined;
  if (!spec?.write) {
    const writes = Object.entries(OPERATIONS)
      .filter(([, s]) => (s as OperationSpec).write)
      .map(([name]) => name);
    throw new EffectError(
      `${where}: "${effect.op}" is not a write operation of the Bot API; use one of ${writes.join(', ')}`,
    );
  }
  if (!record(effect.args)) throw new EffectError(`${where}: args must be an object`);
  if (
    effect.op === 'editMessage' &&
    effect.args.message_id === undefined &&
    ctx.callback &&
    ctx.callback.messageId === undefined
  ) {
    // The press came without its message (the platform may omit it): the answer's `message`
    // changes the pressed message all the same, so the edit travels in the answer.
    const { message_id: _none, ...body } = effect.args;
    return {
      kind: 'api',
      op: 'answerCallback',
      args: { callback_id: ctx.callback.id, message: signMessageBody(body, signing, where) },
      ...orderOf(
        'answerCallback',
        { callback_id: ctx.callback.id },
        signing.conversationKey,
        ctx.callback.chatId,
      ),
      priority: priorityOf('answerCallback'),
    };
  }
  let args = fillTarget(effect.op, spec, effect.args, ctx, where);
  if ('attachments' in args) args = { ...args, attachments: signKeyboards(args.attachments, signing, where) };
  if (effect.op === 'answerCallback' && 'message' in args) {
    args = { ...args, message: signMessageBody(args.message, signing, where) };
  }
  return {
    kind: 'api',
    op: effect.op,
    args,
    ...(effect.ref !== undefined ? { ref: effect.ref } : {}),
    ...orderOf(
      effect.op,
      args,
      signing.conversationKey,
      ctx.meta.chatId ?? ctx.callback?.chatId,
      ctx.meta.userId,
    ),
    priority: priorityOf(effect.op),
  };
}

/** The task a `task.start` effect starts; `started` are those the step started before it. */
function taskStart(
  started: readonly TaskChange[],
  effect: StartTaskEffect,
  where: string,
  ctx: PlanContext,
): TaskChange {
  if (typeof effect.task !== 'string' || !effect.task) throw new EffectError(`${where}: a task needs a name`);
  if (typeof effect.ref !== 'string' || !effect.ref) throw new EffectError(`${where}: a task needs a ref`);
  if (started.some((t) => t.kind === 'start' && t.ref === effect.ref))
    throw new EffectError(`${where}: two tasks started with ref "${effect.ref}" in one step`);
  const chatId = ctx.meta.chatId ?? ctx.callback?.chatId;
  return {
    kind: 'start',
    task: effect.task,
    input: effect.input ?? null,
    ref: effect.ref,
    policy: effect.policy ?? {},
    ...(chatId !== undefined ? { chatId } : {}),
  };
}

function describe(effect: Effect | undefined): string {
  if (!effect || typeof effect !== 'object') return String(effect);
  if (effect.kind === 'api') return effect.op;
  if (effect.kind === 'timer.arm' || effect.kind === 'timer.cancel') return `${effect.kind} ${effect.name}`;
  if (effect.kind === 'task.start') return `task ${effect.task}`;
  return String(effect.kind);
}
