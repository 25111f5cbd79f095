/**
 * The contract between the engine and the flows that run on it. A flow is an XState v5 machine plus a
 * little metadata; the engine feeds it `FlowEvent`s through XState's pure `transition()` and turns the
 * actions it returns into effect rows and timer rows. Machines never do I/O: every API call is data
 * (`Effect`) until the outbox sends it.
 *
 * Declarative flow files (src/flows) compile to `FlowDefinition`; programmers can write one by hand
 * with XState's `setup()` and the helpers of src/engine/helpers.ts.
 */
import type { AnyStateMachine } from 'xstate';
import type { Attachment, Message, NewMessageBody, Update } from '../../client/schemas/index.ts';
import type { MediaSource } from '../../client/upload.ts';

/** Facts about the update that caused an event; the same for every event kind. */
export interface EventMeta {
  /** Conversation key the event was routed by. */
  conversation: string;
  chatId?: number;
  userId?: number;
  /** The person's locale from the update (`user_locale`), when known. */
  locale?: string;
  /** Event time in ms (the update's timestamp or the timer's deadline): machines never read a clock. */
  now: number;
  /**
   * Handoff requests nobody took yet, by operators' chat id, as the store had them before this event
   * (with those planned earlier in the batch): a `handoff` step's `{{handoff_place}}` is this + 1. Only
   * when the flows have handoff steps (docs/handoff.md).
   */
  handoffWaiting?: Record<string, number>;
}

/** What the engine sends into a machine. Every event carries `meta`. */
export type FlowEvent =
  /** The person wrote something: text, attachments, a contact or a location. */
  | { type: 'message'; text?: string; attachments: Attachment[]; message: Message; meta: EventMeta }
  /** A text that starts with `/`: `/cancel now` → name `cancel`, args `now`. */
  | { type: 'command'; name: string; args: string; message: Message; meta: EventMeta }
  /** A current (not stale) callback button: `button` is the id the flow gave it, `value` optional data. */
  | { type: 'button'; button: string; value?: string; callbackId: string; message?: Message; meta: EventMeta }
  /** bot_started while a session is active (a fresh start is the machine's creation instead). */
  | { type: 'bot_started'; payload?: string; meta: EventMeta }
  /** A durable timer armed by this session came due. */
  | { type: 'timer'; name: string; meta: EventMeta }
  /** An effect the flow asked to hear about (it had a `ref`) succeeded; `result` is the API's answer. */
  | { type: 'effect.done'; ref: string; result: unknown; meta: EventMeta }
  /** An effect with a `ref` failed for good (dead letter). */
  | { type: 'effect.failed'; ref: string; error: { code: string; message: string }; meta: EventMeta }
  /** A task this session started (`task.start` with this ref) returned a result. */
  | { type: 'task.done'; task: string; ref: string; result: unknown; meta: EventMeta }
  /**
   * A task failed for good (retries spent): `code` is the task's own (`TaskError`), or `timeout`,
   * `invalid_input`, `invalid_result`, `unknown_task`, `error`, `cancelled`.
   */
  | {
      type: 'task.failed';
      task: string;
      ref: string;
      error: { code: string; message: string };
      meta: EventMeta;
    }
  /**
   * The flow's own code failed at `step` while handling an event (failure.ts): sent instead of that event
   * so that the flow takes its `on_error` route; `builtin`: that route failed too, only the apology is left.
   */
  | { type: 'botflow.failed'; step?: string; message: string; builtin?: boolean; meta: EventMeta }
  /** A designer's jump to a step (the playground): the step is entered with these variables. */
  | { type: 'botflow.jump'; step: string; vars: Record<string, unknown>; meta: EventMeta }
  /**
   * An external event (`bot.events.send`, `POST /events`, `botflow event send`): an order shipped, a form
   * submitted. `payload` passed the flow's or the registry's schema before it was accepted.
   */
  | { type: 'event'; name: string; payload: unknown; meta: EventMeta }
  /**
   * The step the person is on does not take `event` and its policy is `while_elsewhere: queue`: the flow
   * keeps it (flow files: in the context, bounded) and raises it again on a step that takes it.
   */
  | { type: 'botflow.queue'; event: { name: string; payload: unknown }; meta: EventMeta }
  /** Any other update (message_edited, user_added, …), as decoded. */
  | { type: 'update'; update: Update; meta: EventMeta };

/** The inbox event kind of a jump to a step (engine/jump.ts); the engine turns it into `botflow.jump`. */
export const JUMP_EVENT_KIND = 'jump';

/** How a flow is started: passed as the machine's `input` to `initialTransition()`. */
export interface FlowInput {
  /** What started it. */
  trigger:
    | { kind: 'bot_started'; payload?: string }
    | { kind: 'command'; name: string; args: string }
    | { kind: 'message'; text?: string }
    | { kind: 'button'; button: string }
    | { kind: 'call'; from: string; context?: Record<string, unknown> }
    | { kind: 'event'; name: string; payload: unknown };
  meta: EventMeta;
}

/**
 * One API call, as data. `op` is a write operation of the client (`sendMessage`, `editMessage`,
 * `deleteMessage`, `answerCallback`, `sendAction`, `pinMessage`, …) and `args` its single argument
 * object. Where `args` omits the target, the engine fills in the conversation's chat.
 * With `ref`, the result comes back as an `effect.done` / `effect.failed` event with that ref.
 *
 * Callback buttons in `args.attachments` carry the flow's own button id as `payload` (`id` or
 * `id:value`). The engine signs each with the step instance before sending (still ≤ 1024 characters)
 * and turns a press back into a `button` event, or applies the step's stale policy.
 */
export interface ApiEffect {
  kind: 'api';
  op: string;
  args: Record<string, unknown>;
  ref?: string;
}

/** Upload a file (a path or URL the flow names) and send it in a message: the upload token goes into `attachments`. */
export interface UploadAndSendEffect {
  kind: 'upload_and_send';
  media: MediaSource;
  message: NewMessageBody;
  ref?: string;
}

/** Arm (or re-arm) a durable timer of this session; it fires as a `timer` event unless cancelled or its step was left. */
export interface ArmTimerEffect {
  kind: 'timer.arm';
  name: string;
  /** Delay from the event's `meta.now`, in ms. */
  delayMs: number;
}

export interface CancelTimerEffect {
  kind: 'timer.cancel';
  name: string;
}

/**
 * Start a task of the registry (the team's own async code). The task runner runs it at least once, with
 * one idempotency key for every attempt; its result comes back as a `task.done` / `task.failed` event with
 * `ref`, unless the step that started it has been left by then (the result is then recorded and ignored).
 */
export interface StartTaskEffect {
  kind: 'task.start';
  task: string;
  input: unknown;
  ref: string;
  /**
   * Per attempt timeout, attempts, backoff, retried codes (`retryOn` adds to timeouts and unexpected errors,
   * `retryOnly` replaces them) and the compensating task started if it is cancelled after an attempt began;
   * the runner's defaults fill the rest.
   */
  policy?: {
    timeoutMs?: number;
    attempts?: number;
    backoffMs?: number;
    retryOn?: string[];
    retryOnly?: string[];
    onCancel?: { task: string };
  };
}

/**
 * Cancel this session's running task with `ref`: its signal is aborted, no further attempt starts and its
 * result is never delivered. (Leaving the step that started a task cancels it without this.)
 */
export interface CancelTaskEffect {
  kind: 'task.cancel';
  ref: string;
}

/**
 * The step refused what the person sent (an input that did not validate): nothing is sent by it; it is
 * counted as a retry of the step in the funnel (`botflow stats`). Flow files emit it for every rejected
 * answer; hand-written machines may emit it from their own validation.
 */
export interface InputRejectedEffect {
  kind: 'input.rejected';
}

/**
 * Nothing at the step took what the person typed (no button or option matched, no intent was sure): the
 * funnel counts it at the step with `text` as a sample (the first 200 characters; none when the config's
 * `funnel.samples` is false). Flow files emit it (docs/flows.md, "What people type that nothing took").
 */
export interface InputUnrecognisedEffect {
  kind: 'input.unrecognised';
  text: string;
}

/**
 * Tag the person (or take tags off): tags outlive the session, and campaigns select people by them
 * (docs/campaigns.md). Flow files write `tag:` / `untag:` on a step or in `do:`.
 */
export interface TagEffect {
  kind: 'person.tags';
  add?: string[];
  remove?: string[];
}

/** What an effect returns, as data: an API call, an upload then send, a timer armed or cancelled, a task. */
export type Effect =
  | TagEffect
  | ApiEffect
  | UploadAndSendEffect
  | ArmTimerEffect
  | CancelTimerEffect
  | StartTaskEffect
  | CancelTaskEffect
  | InputRejectedEffect
  | InputUnrecognisedEffect;

/** The inbox event kind of a task's result (the task runner writes it; the engine turns it into `task.*`). */
export const TASK_RESULT_KIND = 'task_result';

/** The XState action type whose `params` is an `Effect`: machines emit effects with it. */
export const EFFECT_ACTION = 'botflow.effect';

/**
 * The XState action type a machine emits (params `{ step }`, the step's state path: `ask`, `call>inner`)
 * on entering a step. Optional: it lets the step log count the steps an event passes through without
 * stopping (a branch, a message that moves on by itself), which the snapshot alone does not show.
 */
export const ENTERED_ACTION = 'botflow.entered';

/** What to do with a press on a keyboard of a step the conversation has left. */
export type StalePolicy =
  | { kind: 'notify'; text: string }
  /** Draw the current step again (its prompt and keyboard). */
  | { kind: 'rerender' }
  /** Deliver the press as if it were current. */
  | { kind: 'accept' };

/** What starts a flow when the conversation has no active session. */
export type FlowTrigger =
  | { kind: 'bot_started'; payload?: string | RegExp }
  | { kind: 'command'; name: string }
  | { kind: 'keyword'; pattern: string | RegExp }
  | { kind: 'button'; button: string }
  | { kind: 'any_message' }
  /** An external event of this name (`triggers: - event: order_placed`). */
  | { kind: 'event'; name: string }
  /** Anything that could start a flow (a message, a command, a press, Start) that no other trigger matches. */
  | { kind: 'fallback' };

/**
 * What an external event that reaches a person on a step that does not take it does: `ignore` (recorded as
 * ignored, with the reason), `queue` (kept by the flow until a step takes it), `interrupt` (the running flow
 * ends and the flow the event triggers starts).
 */
export type WhileElsewhere = 'queue' | 'ignore' | 'interrupt';

/** The most events a flow file keeps queued (`while_elsewhere: queue`); more are ignored with the reason. */
export const MAX_QUEUED_EVENTS = 20;

/** What a flow knows of an external event it names (in a trigger, a step's `on_event` or `events:`). */
export interface EventDeclaration {
  /** What is wrong with `payload` (the flow's JSON Schema, the registry's zod schema); empty when fine. */
  check?(payload: unknown): string[];
  /** Declared policy for a person elsewhere in this flow (none: see `eventPolicy` in the engine). */
  whileElsewhere?: WhileElsewhere;
}

/**
 * Built-in texts of the operators' chat the engine renders itself (FlowDefinition.handoff.notice): a person
 * who left (`waiting`, `taken`), the answer to an action on a closed request (`gone`, `closed`), and the
 * label of the button every line about a closed request carries (`closed-button`).
 */
export type HandoffNotice = 'waiting' | 'taken' | 'gone' | 'closed' | 'closed-button';

/** A flow as the engine runs it. */
export interface FlowDefinition {
  /** Stable id (the file name for flow files). */
  id: string;
  /** Where the flow's `handoff` steps ask for operators: updates from this chat are operators' (docs/handoff.md). */
  handoff?: {
    operatorsChat: number;
    /** The flow's `handoff` steps: a session there with an open request nobody took waits in the queue. */
    steps: string[];
    /**
     * What the operators are told (the flow's default locale and `texts:`) when a person leaves with their
     * request open: `waiting` (nobody took it), `taken` (an operator had it), `gone` (an operator's Take
     * or reply came after they left), `closed` (it came after the step closed the request: the timeout,
     * `/done`). `vars`: the person's session's variables, when it still has them.
     */
    notice?(
      what: HandoffNotice,
      vars: Readonly<Record<string, unknown>> | undefined,
      conversation: string,
    ): string;
    /** The text of the request a `handoff` step (`step`) posted, as it drew it (for its edit when it closes). */
    request?(step: string, vars: Readonly<Record<string, unknown>> | undefined, conversation: string): string;
  };
  /** Content hash of the definition: sessions stay on the version they started with. */
  version: string;
  machine: AnyStateMachine;
  triggers: FlowTrigger[];
  /** Stale-button policy of the step the session is in (`stateValue` from the snapshot). */
  stalePolicy(stateValue: unknown): StalePolicy;
  /**
   * What the flow needs to read in group chats: `addressed` (commands, mentions of the bot, replies to
   * it: what a bot without admin rights gets) or `all` (every message: the bot needs `read_all_messages`).
   */
  groupMessages?: 'addressed' | 'all';
  /**
   * The external events the flow knows, by name: triggers, steps' `on_event`, `events:` declarations (and
   * the registry's schemas). An event no flow knows is refused when it is sent (a typo must not vanish).
   */
  events?: Readonly<Record<string, EventDeclaration>>;
  /** Event sent to the machine to draw the current step again (for the `rerender` stale policy). */
  rerenderEvent?: { type: string };
  /**
   * Maps a snapshot of an older version of this flow onto this version, or returns undefined when the
   * old version has no migration (the session then stays on its old version).
   */
  migrate?(fromVersion: string, persisted: unknown): unknown | undefined;
  /**
   * A self-contained JSON text from which the module that built this flow can rebuild exactly this
   * version (flow files: their texts and catalogs). The engine stores it with the version, so sessions
   * pinned to it keep running after a restart with a changed file (EngineOptions.rebuildFlow).
   * Hand-written flows leave it out.
   */
  source?: string;
  /**
   * How the flow recovers when its own code fails (failure.ts): the engine sends `botflow.failed` instead
   * of the event that failed. `startState` is the state a session that failed while starting is restored
   * to first (its start step, not entered); `where` names the file and line of a step, for the log.
   * Without it a failure fails the event, and the session keeps its last good snapshot.
   */
  recover?: {
    startState(input: FlowInput): { value: unknown; context: unknown };
    /** Whether a failure at `step` has a route of the flow's own (`on_error`), rather than the apology. */
    routes(step: string | undefined): boolean;
    where?(step: string): string | undefined;
  };
}

/** The events an operators' chat turns into for the person's conversation (docs/handoff.md). */
export const HANDOFF_EVENTS = {
  /** An operator pressed "Take": `{ operator: {id, name}, callbackId, messageId }`. */
  take: 'botflow.handoff_take',
  /** An operator replied: `{ operator, text?, attachments }`. */
  message: 'botflow.operator_message',
  /** An operator's `/set var value`: `{ operator, name, value }`. */
  set: 'botflow.handoff_set',
  /** An operator's `/done` (or the Done button): `{ operator }`; the flow continues at `return_to`. */
  done: 'botflow.handoff_done',
  /** A press of, or a reply to, a line about a closed request (its 🔒 button): no step takes it; it is answered. */
  closed: 'botflow.handoff_closed',
} as const;
