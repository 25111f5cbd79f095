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
import type { TaskDefinition } from '../dispatch/tasks/task.ts';
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
import {
  chatOfUpdate,
  Places,
  type ReplayClock,
  type ReplayedCall,
  recordedTasks,
  standIn,
  taskKey,
} from './replay-api.ts';
import { type AnnotatedCall, type ConversationDiff, diffCalls } from './replay-diff.ts';

type Database = ReturnType<typeof openDatabase>;

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

const isTyping = (c: CallRecord) => c.op === 'sendAction' && c.args.action === 'typing_on';

/**
 * "typing…" repeated while a task runs depends on how long it ran (every few seconds): a run of them
 * counts as one, so a replay (whose tasks answer at once) compares equal.
 */
function collapseTyping(calls: CallRecord[]): CallRecord[] {
  return calls.filter((c, i) => !(isTyping(c) && i > 0 && isTyping(calls[i - 1]!)));
}

/** The recorded side: its write calls, and the conversation each belongs to (learned up front). */
function recordedSide(recording: Recording) {
  const recordedCalls = recording.calls.filter((c) => isWrite(c.op));
  // Places of the recorded side: learned from all updates and recorded results up front.
  const recordedPlaces = new Places();
  for (const u of recording.updates) recordedPlaces.learnUpdate(u.update);
  for (const c of recordedCalls) recordedPlaces.learnResult(c.args, c.result);
  return { recordedCalls, recordedPlaces };
}

type Api = ReturnType<typeof standIn>;

/** An engine over a fresh database whose API is the stand-in and whose tasks are the recorded ones. */
function replayEngine(
  db: Database,
  options: ReplayOptions,
  api: Api,
  tasks: Record<string, TaskDefinition>,
  clock: ReplayClock,
) {
  const engine = createEngine({
    tasks,
    db,
    flows: options.flows,
    scheduler: { submit: (job: Job) => api.serve(job.op, job.args as Obj) },
    upload: async (media) => ({ type: media.type, payload: { token: `replay-upload:${media.source}` } }),
    clock: { now: () => clock.time, setTimer: () => undefined, clearTimer: () => undefined },
  });
  // The step each conversation is at, by the chat its calls go to (read once per conversation).
  const chatOf = new Map<string, number | null>();
  engine.on('step', (outcome) => {
    const key = outcome.conversationKey;
    if (!key || !outcome.session) return;
    if (!chatOf.has(key)) chatOf.set(key, engine.sessions.get(key)?.chatId ?? null);
    const chat = chatOf.get(key);
    if (chat !== null && chat !== undefined)
      api.stepOf.set(`chat ${chat}`, stepName(JSON.parse(outcome.session.stateValue)));
  });
  return engine;
}

/** Feeds the recorded updates and events to the engine on the virtual clock, timers and retries between. */
async function feed(
  recording: Recording,
  db: Database,
  engine: ReturnType<typeof createEngine>,
  api: Api,
  clock: ReplayClock,
) {
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
      clock.time = Math.max(clock.time, next);
      engine.tick(clock.time);
      await settle();
    }
    clock.time = Math.max(clock.time, target);
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

  engine.start();
  for (const [index, record] of recording.updates.entries()) {
    await eventsUpTo(index);
    await advanceTo(record.at);
    const update = structuredClone(record.update);
    api.places.learnUpdate(update);
    const chat = chatOfUpdate(update);
    if (chat !== undefined) api.lastUpdateOf.set(`chat ${chat}`, index);
    const cb = isObj(update.callback) ? update.callback : undefined;
    if (cb && typeof cb.payload === 'string') cb.payload = api.payloadMap.get(cb.payload) ?? cb.payload;
    inbox.append([{ ...updateEntry(JSON.stringify(update)), receivedAt: record.at }]);
    engine.processPending();
    await settle();
  }
  await eventsUpTo(Number.POSITIVE_INFINITY);
  await advanceTo(recording.endedAt);
  engine.tick(clock.time);
  await settle();
}

/** The calls and task attempts of both sides, conversation by conversation, and where they differ. */
function compare(
  recording: Recording,
  { recordedCalls, recordedPlaces }: ReturnType<typeof recordedSide>,
  replayed: ReplayedCall[],
): ReplayResult {
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

/** Replays `recording` against `options.flows`. */
export async function replay(recording: Recording, options: ReplayOptions): Promise<ReplayResult> {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-replay-'));
  const db = openDatabase({ path: join(dir, 'replay.db') });
  const clock: ReplayClock = { time: recording.startedAt };
  const recorded = recordedSide(recording);
  const api = standIn(recorded.recordedCalls, recorded.recordedPlaces, clock);
  const engine = replayEngine(db, options, api, recordedTasks(recording, api, clock), clock);
  try {
    await feed(recording, db, engine, api, clock);
  } finally {
    await engine.stop({ waitMs: 2_000 });
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return compare(recording, recorded, api.replayed);
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
