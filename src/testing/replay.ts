/**
 * Replay: the recorded updates go through the current flows again, on a virtual clock driven by the
 * recorded timestamps (so reminders and timeouts fire when they did), against a stand-in for the API that
 * answers each call with its recorded result. The calls made now are compared with the recorded ones,
 * conversation by conversation (see replay-diff.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATIONS, type OperationName } from '../client/operations.ts';
import type { Job } from '../client/scheduler/types.ts';
import { type TaskContext, type TaskDefinition, TaskError } from '../dispatch/tasks/task.ts';
import { createEngine } from '../engine/engine.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import type { FlowSet } from '../engine/step/flow-set.ts';
import { stepName } from '../engine/step/step.ts';
import { EVENT_KIND } from '../inbox/event-entry.ts';
import { updateEntry } from '../inbox/update-entry.ts';
import { describeEvent } from '../runtime/history-words.ts';
import type { CallRecord, EventRecord, Recording, TaskRecord } from '../runtime/recording.ts';
import { openDatabase } from '../store/database.ts';
import { EngineInbox } from '../store/engine-inbox.ts';
import { type InboxEntry, InboxStore } from '../store/inbox.ts';
import { TaskStore } from '../store/tasks.ts';
import { TimerStore } from '../store/timers.ts';
import { type AnnotatedCall, type ConversationDiff, diffCalls } from './replay-diff.ts';

/** What a replay needs. */
export interface ReplayOptions {
  flows: FlowDefinition[] | FlowSet;
}

/** The outcome of a replay. */
export interface ReplayResult {
  updates: number;
  recordedCalls: number;
  replayedCalls: number;
  /** Task attempts recorded, and made now (answered from the recording). */
  recordedTasks: number;
  replayedTasks: number;
  /** Conversations whose calls differ (empty: the change does not touch the recorded dialogs). */
  differences: ConversationDiff[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** Only calls that change something are compared: reads (getMe, getUpdates, …) are not the flows' doing. */
export const isWrite = (op: string) => OPERATIONS[op as OperationName]?.write ?? true;

/** Tracks which chat each message and callback belongs to, to group calls by conversation. */
class Places {
  readonly #messages = new Map<string, string>();
  readonly #callbacks = new Map<string, string>();

  learnUpdate(u: Obj): void {
    const message = isObj(u.message) ? u.message : undefined;
    const chat = isObj(message?.recipient) ? message.recipient.chat_id : undefined;
    const mid = isObj(message?.body) ? message.body.mid : undefined;
    if (chat !== undefined && typeof mid === 'string') this.#messages.set(mid, `chat ${chat}`);
    const cb = isObj(u.callback) ? u.callback.callback_id : undefined;
    if (typeof cb === 'string' && chat !== undefined) this.#callbacks.set(cb, `chat ${chat}`);
  }

  learnResult(args: Obj, result: unknown): void {
    const message = isObj(result) && isObj(result.message) ? result.message : undefined;
    const mid = isObj(message?.body) ? message.body.mid : undefined;
    if (typeof mid === 'string') this.#messages.set(mid, this.of(args));
  }

  /** The conversation a call belongs to, from its arguments. */
  of(args: Obj): string {
    if (args.chat_id !== undefined) return `chat ${args.chat_id}`;
    if (args.user_id !== undefined) return `user ${args.user_id}`;
    if (typeof args.callback_id === 'string') return this.#callbacks.get(args.callback_id) ?? 'callbacks';
    if (typeof args.message_id === 'string') return this.#messages.get(args.message_id) ?? 'messages';
    return 'bot';
  }
}

/** The chat an update happens in: its message's, or the chat it names (bot_started…). */
function chatOfUpdate(u: Obj): unknown {
  const message = isObj(u.message) ? u.message : undefined;
  const chat = isObj(message?.recipient) ? message.recipient.chat_id : undefined;
  return chat ?? u.chat_id;
}

/** Callback payloads of a call's inline keyboard, by position. */
function payloadsOf(args: Obj): string[] {
  const message = isObj(args.message) ? args.message : args;
  const attachments = Array.isArray(message.attachments) ? message.attachments : [];
  const kb = attachments.find((a): a is Obj => isObj(a) && a.type === 'inline_keyboard');
  const rows = isObj(kb?.payload) && Array.isArray(kb.payload.buttons) ? (kb.payload.buttons as Obj[][]) : [];
  return rows.flat().map((b) => (typeof b.payload === 'string' ? b.payload : ''));
}

const isTyping = (c: CallRecord) => c.op === 'sendAction' && c.args.action === 'typing_on';

/**
 * "typing…" repeated while a task runs depends on how long it ran (every few seconds): a run of them
 * counts as one, so a replay (whose tasks answer at once) compares equal.
 */
function collapseTyping(calls: CallRecord[]): CallRecord[] {
  return calls.filter((c, i) => !(isTyping(c) && i > 0 && isTyping(calls[i - 1]!)));
}

/** Replays `recording` against `options.flows`. */
export async function replay(recording: Recording, options: ReplayOptions): Promise<ReplayResult> {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-replay-'));
  const db = openDatabase({ path: join(dir, 'replay.db') });
  let time = recording.startedAt;
  const places = new Places();
  const recordedCalls = recording.calls.filter((c) => isWrite(c.op));
  // Places of the recorded side: learned from all updates and recorded results up front.
  const recordedPlaces = new Places();
  for (const u of recording.updates) recordedPlaces.learnUpdate(u.update);
  for (const c of recordedCalls) recordedPlaces.learnResult(c.args, c.result);
  const queues = new Map<string, CallRecord[]>();
  for (const c of recordedCalls) {
    const key = recordedPlaces.of(c.args);
    queues.set(key, [...(queues.get(key) ?? []), c]);
  }
  const payloadMap = new Map<string, string>();
  const replayed: (AnnotatedCall & { conversation: string })[] = [];
  let synthetic = 0;
  // What led to each call: the conversation's last update (by index), and the step it is at now.
  const lastUpdateOf = new Map<string, number>();
  const stepOf = new Map<string, string>();
  const annotate = (key: string) => {
    const cause = lastUpdateOf.get(key);
    const step = stepOf.get(key);
    return { ...(cause !== undefined ? { cause } : {}), ...(step !== undefined ? { step } : {}) };
  };

  const serve = async (op: string, args: Obj): Promise<unknown> => {
    const key = places.of(args);
    replayed.push({ type: 'call', at: time, op, args, conversation: key, ...annotate(key) });
    const queue = queues.get(key) ?? [];
    const found = queue.slice(0, 4).findIndex((c) => c.op === op);
    const match = found >= 0 ? queue.splice(0, found + 1)[found] : undefined;
    if (match) {
      const recorded = payloadsOf(match.args);
      payloadsOf(args).forEach((p, i) => {
        if (recorded[i] && p) payloadMap.set(recorded[i]!, p);
      });
      // Plain Error on purpose: the recorded failure, replayed with its own message and code.
      if (match.error) throw Object.assign(new Error(match.error.message), { code: match.error.code });
      if (match.result !== undefined) {
        places.learnResult(args, match.result);
        return match.result;
      }
    }
    if (op === 'sendMessage' || op === 'editMessage') {
      const mid = `replay.${++synthetic}`;
      const result = {
        message: {
          body: { mid, seq: synthetic, text: args.text },
          recipient: { chat_id: args.chat_id },
          timestamp: time,
        },
      };
      places.learnResult(args, result);
      return op === 'sendMessage' ? result : { success: true };
    }
    return { success: true };
  };

  // Tasks answer from the recording (never the real systems), in order per conversation and task name; a
  // task the recording does not have fails with `not_recorded`. Their inputs are compared like calls.
  // Tasks run beside the calls (a fast task may end before the prompt is sent), so each conversation's task
  // attempts are compared in a sequence of their own.
  const taskKey = (chat: number | undefined, conversation: string) =>
    `${chat !== undefined ? `chat ${chat}` : `conversation ${conversation}`}, tasks`;
  const taskQueues = new Map<string, TaskRecord[]>();
  for (const t of recording.tasks ?? []) {
    const k = `${taskKey(t.chat, t.conversation)}|${t.task}`;
    taskQueues.set(k, [...(taskQueues.get(k) ?? []), t]);
  }
  const tasks = new Proxy({} as Record<string, TaskDefinition>, {
    getOwnPropertyDescriptor: (_, name) => ({
      value: recordedTask(String(name)),
      configurable: true,
      enumerable: true,
      writable: false,
    }),
    get: (_, name) => recordedTask(String(name)),
  });
  function recordedTask(name: string): TaskDefinition {
    return (input: unknown, ctx: TaskContext) => {
      const key = taskKey(ctx.scope.chatId, ctx.scope.conversation);
      const chat = ctx.scope.chatId !== undefined ? annotate(`chat ${ctx.scope.chatId}`) : {};
      replayed.push({
        type: 'call',
        at: time,
        op: `task ${name}`,
        args: input as Obj,
        conversation: key,
        ...chat,
      });
      const match = taskQueues.get(`${key}|${name}`)?.shift();
      if (!match)
        throw new TaskError('not_recorded', `the recording has no (further) result of task "${name}" here`);
      if (match.error)
        throw new TaskError(match.error.code, match.error.message, {
          retryable: match.retried === true,
        });
      return match.result;
    };
  }

  const engine = createEngine({
    tasks,
    db,
    flows: options.flows,
    scheduler: { submit: (job: Job) => serve(job.op, job.args as Obj) },
    upload: async (media) => ({ type: media.type, payload: { token: `replay-upload:${media.source}` } }),
    clock: { now: () => time, setTimer: () => undefined, clearTimer: () => undefined },
  });
  // The step each conversation is at, by the chat its calls go to (read once per conversation).
  const chatOf = new Map<string, number | null>();
  engine.on('step', (outcome) => {
    const key = outcome.conversationKey;
    if (!key || !outcome.session) return;
    if (!chatOf.has(key)) chatOf.set(key, engine.sessions.get(key)?.chatId ?? null);
    const chat = chatOf.get(key);
    if (chat !== null && chat !== undefined)
      stepOf.set(`chat ${chat}`, stepName(JSON.parse(outcome.session.stateValue)));
  });
  const inbox = new InboxStore(db);
  const pending = new EngineInbox(db);
  const timers = new TimerStore(db);
  const taskRows = new TaskStore(db);
  /** The next timer or task retry due, whichever is first. */
  const nextDue = () => {
    const t = [timers.nextFireAt(), taskRows.nextRunAfter()].filter((x): x is number => x !== undefined);
    return t.length ? Math.min(...t) : undefined;
  };
  const settle = async () => {
    for (let i = 0; i < 50; i++) {
      await engine.drain();
      if (pending.pendingCount() === 0) return;
    }
  };
  const advanceTo = async (target: number) => {
    for (;;) {
      const next = nextDue();
      if (next === undefined || next > target) break;
      time = Math.max(time, next);
      engine.tick(time);
      await settle();
    }
    time = Math.max(time, target);
  };

  // External events go back in where they came: after the updates recorded before them.
  const events = [...(recording.events ?? [])];
  let replayedEvents = 0;
  const eventsUpTo = async (updatesBefore: number) => {
    while (events.length > 0 && (events[0]!.after ?? 0) <= updatesBefore) {
      const record = events.shift()!;
      await advanceTo(record.at);
      inbox.append([replayedEvent(record, ++replayedEvents)]);
      engine.processPending();
      await settle();
    }
  };

  try {
    engine.start();
    for (const [index, record] of recording.updates.entries()) {
      await eventsUpTo(index);
      await advanceTo(record.at);
      const update = structuredClone(record.update);
      places.learnUpdate(update);
      const chat = chatOfUpdate(update);
      if (chat !== undefined) lastUpdateOf.set(`chat ${chat}`, index);
      const cb = isObj(update.callback) ? update.callback : undefined;
      if (cb && typeof cb.payload === 'string') cb.payload = payloadMap.get(cb.payload) ?? cb.payload;
      inbox.append([{ ...updateEntry(JSON.stringify(update)), receivedAt: record.at }]);
      engine.processPending();
      await settle();
    }
    await eventsUpTo(Number.POSITIVE_INFINITY);
    await advanceTo(recording.endedAt);
    engine.tick(time);
    await settle();
  } finally {
    await engine.stop({ waitMs: 2_000 });
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }

  // The recorded side's causes: the conversation's last update at or before the call.
  const updatesOf = new Map<string, { at: number; index: number }[]>();
  recording.updates.forEach((u, index) => {
    const chat = chatOfUpdate(u.update);
    if (chat === undefined) return;
    const key = `chat ${chat}`;
    updatesOf.set(key, [...(updatesOf.get(key) ?? []), { at: u.at, index }]);
  });
  // A recording read from a file says how many updates came before each call; one built from a database
  // only has times.
  const causeOf = (chatKey: string, call: { at: number; after?: number }) => {
    const { after } = call;
    const cause = updatesOf
      .get(chatKey)
      ?.findLast((u) => (after !== undefined ? u.index < after : u.at <= call.at))?.index;
    return cause !== undefined ? { cause } : {};
  };
  const recordedByKey = new Map<string, AnnotatedCall[]>();
  const asCall = (t: TaskRecord): AnnotatedCall & { key: string } => ({
    type: 'call',
    at: t.at,
    op: `task ${t.task}`,
    args: t.input as Obj,
    key: taskKey(t.chat, t.conversation),
    ...(t.chat !== undefined ? causeOf(`chat ${t.chat}`, t) : {}),
  });
  const recordedAll = [
    ...recordedCalls.map((c) => {
      const key = recordedPlaces.of(c.args);
      return { ...c, key, ...causeOf(key, c) };
    }),
    ...(recording.tasks ?? []).map(asCall),
  ];
  for (const { key, ...c } of recordedAll) recordedByKey.set(key, [...(recordedByKey.get(key) ?? []), c]);
  const replayedByKey = new Map<string, AnnotatedCall[]>();
  for (const c of replayed)
    replayedByKey.set(c.conversation, [...(replayedByKey.get(c.conversation) ?? []), c]);
  const keys = [...new Set([...recordedByKey.keys(), ...replayedByKey.keys()])].sort();
  const inputs = recording.updates.map((u) =>
    describeEvent({ kind: 'update', updateType: null, payload: u.update }),
  );
  const differences = keys
    .map((key) =>
      diffCalls(
        key,
        collapseTyping(recordedByKey.get(key) ?? []),
        collapseTyping(replayedByKey.get(key) ?? []),
        inputs,
      ),
    )
    .filter((d): d is ConversationDiff => d !== undefined);
  return {
    updates: recording.updates.length,
    recordedCalls: recordedCalls.length,
    replayedCalls: replayed.filter((c) => !c.op.startsWith('task ')).length,
    recordedTasks: recording.tasks?.length ?? 0,
    replayedTasks: replayed.filter((c) => c.op.startsWith('task ')).length,
    differences,
  };
}

/** The inbox row of a recorded external event, as the engine stored it. */
function replayedEvent(record: EventRecord, n: number): InboxEntry {
  const { event } = record;
  return {
    kind: EVENT_KIND,
    dedupeKey: `e:${event.name}:${event.key ?? `replayed-${n}`}`,
    conversationKey: record.conversation,
    payload: JSON.stringify(event),
    receivedAt: record.at,
  };
}
