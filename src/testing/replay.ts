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
import type { Job } from '../dispatch/scheduler/types.ts';
import { createEngine } from '../engine/engine.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import type { FlowSet } from '../engine/step/flow-set.ts';
import { updateEntry } from '../inbox/update-entry.ts';
import type { CallRecord, Recording } from '../runtime/recording.ts';
import { openDatabase } from '../store/database.ts';
import { EngineInbox } from '../store/engine-inbox.ts';
import { InboxStore } from '../store/inbox.ts';
import { TimerStore } from '../store/timers.ts';
import { type ConversationDiff, diffCalls } from './replay-diff.ts';

/** What a replay needs. */
export interface ReplayOptions {
  flows: FlowDefinition[] | FlowSet;
}

/** The outcome of a replay. */
export interface ReplayResult {
  updates: number;
  recordedCalls: number;
  replayedCalls: number;
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

/** Callback payloads of a call's inline keyboard, by position. */
function payloadsOf(args: Obj): string[] {
  const message = isObj(args.message) ? args.message : args;
  const attachments = Array.isArray(message.attachments) ? message.attachments : [];
  const kb = attachments.find((a): a is Obj => isObj(a) && a.type === 'inline_keyboard');
  const rows = isObj(kb?.payload) && Array.isArray(kb.payload.buttons) ? (kb.payload.buttons as Obj[][]) : [];
  return rows.flat().map((b) => (typeof b.payload === 'string' ? b.payload : ''));
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
  const replayed: (CallRecord & { conversation: string })[] = [];
  let synthetic = 0;

  const serve = async (op: string, args: Obj): Promise<unknown> => {
    const key = places.of(args);
    replayed.push({ type: 'call', at: time, op, args, conversation: key });
    const queue = queues.get(key) ?? [];
    const found = queue.slice(0, 4).findIndex((c) => c.op === op);
    const match = found >= 0 ? queue.splice(0, found + 1)[found] : undefined;
    if (match) {
      const recorded = payloadsOf(match.args);
      payloadsOf(args).forEach((p, i) => {
        if (recorded[i] && p) payloadMap.set(recorded[i]!, p);
      });
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

  const engine = createEngine({
    db,
    flows: options.flows,
    scheduler: { submit: (job: Job) => serve(job.op, job.args as Obj) },
    upload: async (media) => ({ type: media.type, payload: { token: `replay-upload:${media.source}` } }),
    clock: { now: () => time, setTimer: () => undefined, clearTimer: () => undefined },
  });
  const inbox = new InboxStore(db);
  const pending = new EngineInbox(db);
  const timers = new TimerStore(db);
  const settle = async () => {
    for (let i = 0; i < 50; i++) {
      await engine.drain();
      if (pending.pendingCount() === 0) return;
    }
  };
  const advanceTo = async (target: number) => {
    for (;;) {
      const next = timers.nextFireAt();
      if (next === undefined || next > target) break;
      time = Math.max(time, next);
      engine.tick(time);
      await settle();
    }
    time = Math.max(time, target);
  };

  try {
    engine.start();
    for (const record of recording.updates) {
      await advanceTo(record.at);
      const update = structuredClone(record.update);
      places.learnUpdate(update);
      const cb = isObj(update.callback) ? update.callback : undefined;
      if (cb && typeof cb.payload === 'string') cb.payload = payloadMap.get(cb.payload) ?? cb.payload;
      inbox.append([{ ...updateEntry(JSON.stringify(update)), receivedAt: record.at }]);
      engine.processPending();
      await settle();
    }
    await advanceTo(recording.endedAt);
    engine.tick(time);
    await settle();
  } finally {
    await engine.stop({ waitMs: 2_000 });
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const recordedByKey = new Map<string, CallRecord[]>();
  for (const c of recordedCalls) {
    const key = recordedPlaces.of(c.args);
    recordedByKey.set(key, [...(recordedByKey.get(key) ?? []), c]);
  }
  const replayedByKey = new Map<string, CallRecord[]>();
  for (const c of replayed)
    replayedByKey.set(c.conversation, [...(replayedByKey.get(c.conversation) ?? []), c]);
  const keys = [...new Set([...recordedByKey.keys(), ...replayedByKey.keys()])].sort();
  const differences = keys
    .map((key) => diffCalls(key, recordedByKey.get(key) ?? [], replayedByKey.get(key) ?? []))
    .filter((d): d is ConversationDiff => d !== undefined);
  return {
    updates: recording.updates.length,
    recordedCalls: recordedCalls.length,
    replayedCalls: replayed.length,
    differences,
  };
}
