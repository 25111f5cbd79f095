/**
 * The recording format of `botflow run --record <file>`: JSON lines, one record per line, in the order
 * things happened. Replay reads it back.
 *
 *   {"type":"start","version":1,"at":1767603600000}
 *   {"type":"update","at":1767603601000,"update":{"update_type":"bot_started",…}}
 *   {"type":"event","at":1767603601500,"conversation":"u:42","event":{"name":"order_shipped","payload":{…},…}}
 *   {"type":"call","at":1767603601020,"op":"sendMessage","args":{…},"result":{…}}
 *   {"type":"call","at":…,"op":"editMessage","args":{…},"error":{"code":"not.found","message":"…"}}
 *   {"type":"task","at":…,"task":"find_slots","conversation":"u:7","chat":1007,"attempt":1,"input":{…},"result":[…]}
 *   {"type":"end","at":1767607200000}
 */
import { readFileSync } from 'node:fs';
import { BotflowError } from '../errors/index.ts';
import type { StoredEvent } from '../inbox/event-entry.ts';

/** The first line. */
export interface StartRecord {
  type: 'start';
  version: 1;
  at: number;
}
/** An update the bot accepted (webhook or long polling). */
export interface UpdateRecord {
  type: 'update';
  at: number;
  update: Record<string, unknown>;
}
/** An external event the bot accepted (`bot.events.send`, `POST /events`): its conversation and stored event. */
export interface EventRecord {
  type: 'event';
  at: number;
  conversation: string;
  event: StoredEvent;
  /** How many updates come before it in the file (set when read back, not written). */
  after?: number;
}
/** An API call the bot made, with its result or its error. */
export interface CallRecord {
  type: 'call';
  at: number;
  op: string;
  args: Record<string, unknown>;
  result?: unknown;
  error?: { code: string; message: string };
  /** How many updates come before it in the file (set when read back, not written): what led to it. */
  after?: number;
}
/**
 * One attempt of a task (the team's own code a flow started), with its input and its result or error.
 * Replay answers the task from these instead of calling the real systems.
 */
export interface TaskRecord {
  type: 'task';
  at: number;
  task: string;
  conversation: string;
  chat?: number;
  attempt: number;
  input: unknown;
  result?: unknown;
  error?: { code: string; message: string };
  /** The failure was tried again (replay makes the same decision). */
  retried?: true;
  /** How many updates come before it in the file (set when read back, not written). */
  after?: number;
}
/** The last line, written when the recording is closed cleanly. */
export interface EndRecord {
  type: 'end';
  at: number;
}

export type RecordLine = StartRecord | UpdateRecord | EventRecord | CallRecord | TaskRecord | EndRecord;

/** A recording read back. */
export interface Recording {
  startedAt: number;
  endedAt: number;
  updates: UpdateRecord[];
  calls: CallRecord[];
  /** External events, each with how many updates came before it (absent when none was recorded). */
  events?: EventRecord[];
  /** Task attempts, in the order they ended (absent in recordings made before tasks). */
  tasks?: TaskRecord[];
  /** Why the replay may differ for reasons other than the flows (e.g. a pruned inbox). */
  warnings?: string[];
}

/** A line of a recording that is not what `--record` writes. */
export class RecordingError extends BotflowError {
  override name = 'RecordingError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_RECORDING_INVALID', message, options);
  }
}

/** Reads a recording; a truncated last line (the process was killed while writing) is ignored. */
export function readRecording(path: string): Recording {
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  const recording: Recording = { startedAt: 0, endedAt: 0, updates: [], calls: [] };
  const tasks: TaskRecord[] = [];
  const events: EventRecord[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let record: RecordLine;
    try {
      record = JSON.parse(line) as RecordLine;
    } catch {
      if (i >= lines.length - 2) return;
      throw new RecordingError(
        `${path}:${i + 1}: not a JSON line; is this a file written by botflow run --record?`,
      );
    }
    if (record.type === 'start') recording.startedAt = record.at;
    else if (record.type === 'end') recording.endedAt = record.at;
    else if (record.type === 'update') recording.updates.push(record);
    else if (record.type === 'event') events.push({ ...record, after: recording.updates.length });
    else if (record.type === 'call') recording.calls.push({ ...record, after: recording.updates.length });
    else if (record.type === 'task') tasks.push({ ...record, after: recording.updates.length });
    else
      throw new RecordingError(
        `${path}:${i + 1}: unknown record type ${JSON.stringify((record as { type?: unknown }).type)}`,
      );
  });
  if (tasks.length > 0) recording.tasks = tasks;
  if (events.length > 0) recording.events = events;
  const last = Math.max(0, ...recording.updates.map((u) => u.at), ...recording.calls.map((c) => c.at));
  recording.endedAt = Math.max(recording.endedAt, last);
  if (!recording.startedAt) recording.startedAt = recording.updates[0]?.at ?? last;
  return recording;
}
