/**
 * Small helpers for flows written by hand in TypeScript with XState's `setup()`: actions that emit
 * botflow effects (`say`, `edit`, `answer`, `effect`, `uploadAndSend`, `armTimer`, `cancelTimer`),
 * keyboard builders (`button`, `keyboard`) and `defineFlow`, which wraps a machine into a FlowDefinition.
 * Every action here is pure: it computes an Effect from the context and the event; the engine sends it.
 */
import { createHash } from 'node:crypto';
import type { AnyStateMachine } from 'xstate';
import type { NewMessageBody } from '../../client/schemas/index.ts';
import {
  EFFECT_ACTION,
  type Effect,
  type FlowDefinition,
  type FlowEvent,
  type FlowTrigger,
  type StalePolicy,
  type StartTaskEffect,
  type UploadAndSendEffect,
} from './contract.ts';

/** What an action computes from: the machine's context and the event being handled. */
export interface ActionInput<TContext> {
  context: TContext;
  event: FlowEvent;
}

/** A value, or a function of the context and event that computes it. */
export type Computed<T, TContext> = T | ((input: ActionInput<TContext>) => T);

/** An XState action that emits one botflow effect. Use it in `entry`, `exit` or transition `actions`. */
export type EffectAction = ((args: unknown, params: unknown) => void) & {
  readonly type: typeof EFFECT_ACTION;
};

function compute<T, TContext>(value: Computed<T, TContext>, input: ActionInput<TContext>): T {
  return typeof value === 'function' ? (value as (i: ActionInput<TContext>) => T)(input) : value;
}

/**
 * An action emitting the effect `make` computes. It follows XState's built-in action protocol (like
 * `emit`), so `transition()` hands the engine `{type: 'botflow.effect', params: effect}` without running
 * anything.
 */
function effectAction<TContext>(
  make: (input: ActionInput<TContext>) => Effect,
  helper: string,
  source: unknown[],
): EffectAction {
  function botflowEffect(_args: unknown, _params: unknown): void {}
  return Object.assign(botflowEffect, {
    type: EFFECT_ACTION,
    // What the action was made from, so that machineVersion() sees a changed text or keyboard.
    source: stableText([helper, ...source]),
    resolve: (_scope: unknown, snapshot: unknown, args: ActionInput<TContext>) => [
      snapshot,
      make(args),
      undefined,
    ],
    execute: () => {},
  }) as unknown as EffectAction;
}

/** A callback button; `value` travels with the press (`button` event's `value`). */
export function button(
  id: string,
  text: string,
  value?: string,
): { type: 'callback'; text: string; payload: string } {
  return { type: 'callback', text, payload: value === undefined ? id : `${id}:${value}` };
}

/** A keyboard attachment from rows of buttons. */
export function keyboard(rows: readonly (readonly unknown[])[]): {
  type: 'inline_keyboard';
  payload: { buttons: unknown[][] };
} {
  return { type: 'inline_keyboard', payload: { buttons: rows.map((row) => [...row]) } };
}

/** Options of `say` and `edit`. */
export interface MessageOptions<TContext> {
  /** Rows of buttons (see `button`); callback payloads are signed by the engine. */
  keyboard?: Computed<readonly (readonly unknown[])[], TContext>;
  format?: NewMessageBody['format'];
  /** Other NewMessageBody fields (notify, link, attachments, …). */
  body?: Computed<Partial<NewMessageBody>, TContext>;
  /** Hear the result back as `effect.done` / `effect.failed` with this ref (e.g. the sent message's id). */
  ref?: string;
}

function messageBody<TContext>(
  text: Computed<string, TContext>,
  options: MessageOptions<TContext>,
  input: ActionInput<TContext>,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...(options.body ? compute(options.body, input) : {}) };
  body.text = compute(text, input);
  if (options.format) body.format = options.format;
  if (options.keyboard) {
    const attachments = Array.isArray(body.attachments) ? [...body.attachments] : [];
    attachments.push(keyboard(compute(options.keyboard, input)));
    body.attachments = attachments;
  }
  return body;
}

/** Sends a message to the conversation's chat. */
export function say<TContext = unknown>(
  text: Computed<string, TContext>,
  options: MessageOptions<TContext> = {},
): EffectAction {
  return effectAction<TContext>(
    (input) => ({
      kind: 'api',
      op: 'sendMessage',
      args: messageBody(text, options, input),
      ...(options.ref ? { ref: options.ref } : {}),
    }),
    'say',
    [text, options],
  );
}

/**
 * Edits a message in place: `messageId` (computed, e.g. from context), or by default the message whose
 * button was pressed. A `keyboard` replaces the old one; without it the old keyboard stays.
 */
export function edit<TContext = unknown>(
  text: Computed<string, TContext>,
  options: MessageOptions<TContext> & { messageId?: Computed<string, TContext> } = {},
): EffectAction {
  return effectAction<TContext>(
    (input) => ({
      kind: 'api',
      op: 'editMessage',
      args: {
        ...messageBody(text, options, input),
        ...(options.messageId ? { message_id: compute(options.messageId, input) } : {}),
      },
      ...(options.ref ? { ref: options.ref } : {}),
    }),
    'edit',
    [text, options],
  );
}

/** Answers the pressed button now, with a one-off notification. (Presses are answered anyway; use this for the text.) */
export function answer<TContext = unknown>(notification?: Computed<string, TContext>): EffectAction {
  return effectAction<TContext>(
    (input) => ({
      kind: 'api',
      op: 'answerCallback',
      args: notification === undefined ? {} : { notification: compute(notification, input) },
    }),
    'answer',
    [notification],
  );
}

/** Any write operation of the client, e.g. `effect('pinMessage', ({context}) => ({message_id: context.mid}))`. */
export function effect<TContext = unknown>(
  op: string,
  args: Computed<Record<string, unknown>, TContext> = {},
  options: { ref?: string } = {},
): EffectAction {
  return effectAction<TContext>(
    (input) => ({
      kind: 'api',
      op,
      args: compute(args, input),
      ...(options.ref ? { ref: options.ref } : {}),
    }),
    'effect',
    [op, args, options],
  );
}

/** Uploads a file (path or URL) and sends it in a message. */
export function uploadAndSend<TContext = unknown>(
  media: Computed<UploadAndSendEffect['media'], TContext>,
  message: Computed<NewMessageBody, TContext> = {},
  options: { ref?: string } = {},
): EffectAction {
  return effectAction<TContext>(
    (input) => ({
      kind: 'upload_and_send',
      media: compute(media, input),
      message: compute(message, input),
      ...(options.ref ? { ref: options.ref } : {}),
    }),
    'uploadAndSend',
    [media, message, options],
  );
}

/** Arms (or re-arms) the durable timer `name`: a `timer` event arrives after `ms` unless cancelled or the step is left. */
export function armTimer<TContext = unknown>(name: string, ms: Computed<number, TContext>): EffectAction {
  return effectAction<TContext>(
    (input) => ({ kind: 'timer.arm', name, delayMs: compute(ms, input) }),
    'armTimer',
    [name, ms],
  );
}

/**
 * Starts the registry task `task` with `input`; its result comes back as a `task.done` / `task.failed`
 * event with `ref` (while the step that started it is current). `policy`: per attempt timeout, attempts,
 * backoff, retryable codes.
 */
export function startTask<TContext = unknown>(
  task: string,
  input: Computed<unknown, TContext>,
  ref: string,
  policy?: StartTaskEffect['policy'],
): EffectAction {
  return effectAction<TContext>(
    (args) => ({ kind: 'task.start', task, input: compute(input, args), ref, ...(policy ? { policy } : {}) }),
    'startTask',
    [task, ref],
  );
}

/** Cancels this session's running task `ref`: its signal is aborted and its result never delivered. */
export function cancelTask(ref: string): EffectAction {
  return effectAction(() => ({ kind: 'task.cancel', ref }), 'cancelTask', [ref]);
}

/**
 * Marks the event's answer as refused (`input.rejected`): it counts as a retry of the step in the funnel
 * (`botflow stats`). Sends nothing: say why with `say` beside it.
 */
export function rejectInput(): EffectAction {
  return effectAction(() => ({ kind: 'input.rejected' }), 'rejectInput', []);
}

/**
 * Marks the event's text as taken by nothing at the step (`input.unrecognised`): the funnel counts it there
 * with the text as a sample (its first 200 characters; none with `funnel.samples: false`). Sends nothing.
 * An event without text counts nothing.
 */
export function unrecognisedInput(): EffectAction {
  return effectAction(
    ({ event }) => {
      const text = (event as { text?: unknown }).text;
      return { kind: 'input.unrecognised', text: typeof text === 'string' ? text : '' };
    },
    'unrecognisedInput',
    [],
  );
}

/** Cancels the durable timer `name`. */
export function cancelTimer(name: string): EffectAction {
  return effectAction(() => ({ kind: 'timer.cancel', name }), 'cancelTimer', [name]);
}

/** What `defineFlow` takes. */
export interface FlowSpec {
  id: string;
  machine: AnyStateMachine;
  triggers: FlowTrigger[];
  /** Defaults to a hash of the machine's configuration (function sources included). */
  version?: string;
  /** One policy for every step, or per step from the state value. Default: notify "This menu is out of date." */
  stale?: StalePolicy | ((stateValue: unknown) => StalePolicy);
  /** Event that draws the current step again, for the `rerender` stale policy. */
  rerenderEvent?: { type: string };
  migrate?: FlowDefinition['migrate'];
  /** External events the flow takes (`{ order_shipped: { check, whileElsewhere } }`): others are refused. */
  events?: FlowDefinition['events'];
}

function stableText(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'function') return (v as { source?: string }).source ?? `fn:${v.toString()}`;
    if (v instanceof RegExp) return `re:${v.toString()}`;
    if (v !== null && typeof v === 'object') {
      if (seen.has(v)) return '[cycle]';
      seen.add(v);
    }
    return v;
  });
}

/** Hash of a machine's configuration, functions included by source: changes when the flow changes. */
export function machineVersion(machine: AnyStateMachine): string {
  const text = stableText({ config: machine.config, implementations: machine.implementations });
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** Wraps a hand-written machine into the FlowDefinition the engine runs. */
export function defineFlow(spec: FlowSpec): FlowDefinition {
  const stale = spec.stale ?? { kind: 'notify', text: 'This menu is out of date.' };
  return {
    id: spec.id,
    version: spec.version ?? machineVersion(spec.machine),
    machine: spec.machine,
    triggers: spec.triggers,
    stalePolicy: typeof stale === 'function' ? stale : () => stale,
    ...(spec.rerenderEvent ? { rerenderEvent: spec.rerenderEvent } : {}),
    ...(spec.migrate ? { migrate: spec.migrate } : {}),
    ...(spec.events ? { events: spec.events } : {}),
  };
}
