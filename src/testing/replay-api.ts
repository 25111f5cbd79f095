/**
 * What a replay answers the engine with (replay.ts): a stand-in for the API that answers each call with its
 * recorded result (in order per conversation), and the recorded tasks' results. Each call and task attempt
 * made now is kept, with what led to it, for the comparison.
 */
import type { TaskContext, TaskDefinition } from '../dispatch/tasks/task.ts';
import { TaskError } from '../dispatch/tasks/task.ts';
import type { CallRecord, Recording, TaskRecord } from '../runtime/recording.ts';
import type { AnnotatedCall } from './replay-diff.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** The virtual time of a replay, moved by the recorded timestamps. */
export interface ReplayClock {
  time: number;
}

/** A call or task attempt made now, in the conversation (or task sequence) it belongs to. */
export type ReplayedCall = AnnotatedCall & { conversation: string };

export /** Tracks which chat each message and callback belongs to, to group calls by conversation. */
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

export /** The chat an update happens in: its message's, or the chat it names (bot_started…). */
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

/**
 * Tasks run beside the calls (a fast task may end before the prompt is sent), so each conversation's task
 * attempts are compared in a sequence of their own.
 */
export const taskKey = (chat: number | undefined, conversation: string) =>
  `${chat !== undefined ? `chat ${chat}` : `conversation ${conversation}`}, tasks`;

/** The stand-in for the API: each call answered with the next recorded one of its conversation. */
export function standIn(recordedCalls: CallRecord[], recordedPlaces: Places, clock: ReplayClock) {
  const places = new Places();
  const queues = new Map<string, CallRecord[]>();
  for (const c of recordedCalls) {
    const key = recordedPlaces.of(c.args);
    queues.set(key, [...(queues.get(key) ?? []), c]);
  }
  const payloadMap = new Map<string, string>();
  const replayed: ReplayedCall[] = [];
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
    replayed.push({ type: 'call', at: clock.time, op, args, conversation: key, ...annotate(key) });
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
          timestamp: clock.time,
        },
      };
      places.learnResult(args, result);
      return op === 'sendMessage' ? result : { success: true };
    }
    return { success: true };
  };
  return { places, payloadMap, replayed, lastUpdateOf, stepOf, annotate, serve };
}

/**
 * Tasks answer from the recording (never the real systems), in order per conversation and task name; a
 * task the recording does not have fails with `not_recorded`. Their inputs are compared like calls.
 */
export function recordedTasks(
  recording: Recording,
  { replayed, annotate }: ReturnType<typeof standIn>,
  clock: ReplayClock,
): Record<string, TaskDefinition> {
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
        at: clock.time,
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
  return tasks;
}
