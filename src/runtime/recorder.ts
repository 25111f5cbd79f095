/**
 * `createRecorder(path, options)`: what `botflow run --record <file>` writes with. Hooks: `update()` for
 * every accepted update, `call()` for every API result (or `wrapApi()` around the client the scheduler
 * uses). The bot token never reaches the file; values of personal fields (by key, e.g. `phone`) are
 * replaced everywhere they occur, in updates and in call arguments alike, by a stable placeholder
 * (`«phone:1»`), so a redacted recording still replays without differences.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { OPERATIONS, type OperationName } from '../client/operations.ts';
import type { TaskOutcome } from '../dispatch/tasks/runner.ts';
import type { StoredEvent } from '../inbox/event-entry.ts';
import { systemClock } from '../store/ports/clock.ts';
import type { CallRecord, RecordLine } from './recording.ts';

const isWrite = (op: string) => OPERATIONS[op as OperationName]?.write ?? true;

/** Options of `createRecorder`. */
export interface RecorderOptions {
  /** Field names whose values are personal (default: DEFAULT_REDACTED_FIELDS). */
  redact?: readonly string[];
  /** Strings that must never be written (the bot token, secrets): replaced by `«redacted»`. */
  secrets?: readonly (string | undefined)[];
  /** Time source (default: the system clock, `systemClock.now`). */
  now?: () => number;
}

/** Personal fields redacted by default: phone numbers and contact cards. */
export const DEFAULT_REDACTED_FIELDS = ['phone', 'phone_number', 'vcf_info', 'vcf_phone'];

/** An API client's single entry point, as BotApi and the scheduler's ApiCaller have it. */
interface Caller {
  call(op: never, args: never, options?: never): Promise<unknown>;
}

/** A recording in progress. */
export interface Recorder {
  /** Records an update the bot accepted (the parsed object or its JSON text). */
  update(update: unknown): void;
  /** Records a task attempt that ended (done, failed, to be retried), with its input and result or error. */
  task(outcome: TaskOutcome): void;
  /** Records an API call with its result or its failure. */
  call(op: string, args: Record<string, unknown>, outcome: { result: unknown } | { error: unknown }): void;
  /** The same client, recording every `call()` of a write operation (reads pass through unrecorded). */
  wrapApi<T extends Caller>(api: T): T;
  /** Records an external event the engine stored (`engine.on('accepted')`). */
  event(row: { kind: string; conversationKey: string; payload: string; at: number }): void;
  /** Records the updates intake just committed to the inbox (the payloads of intake's `onAccepted`). */
  accepted(payloads: readonly string[]): void;
  /** Adds a string that must never be written (a token known only after start). */
  addSecret(secret: string): void;
  /** Writes the end line and closes the file. */
  close(): Promise<void>;
}

/** Replaces secrets and personal values in `value` (deeply), learning new personal values on the way. */
export class Redactor {
  readonly #fields: Set<string>;
  readonly #secrets: string[];

  /** Adds a string to replace by `«redacted»` from now on. */
  addSecret(secret: string): void {
    if (secret.length >= 4) this.#secrets.push(secret);
  }
  readonly #values = new Map<string, string>();
  #counts = new Map<string, number>();

  constructor(fields: readonly string[], secrets: readonly (string | undefined)[]) {
    this.#fields = new Set(fields);
    this.#secrets = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4);
  }

  #placeholder(field: string, value: string): string {
    let p = this.#values.get(value);
    if (!p) {
      const n = (this.#counts.get(field) ?? 0) + 1;
      this.#counts.set(field, n);
      p = `«${field}:${n}»`;
      this.#values.set(value, p);
    }
    return p;
  }

  #learn(value: unknown, field?: string): void {
    if (field && this.#fields.has(field) && (typeof value === 'string' || typeof value === 'number')) {
      if (String(value).length >= 4) this.#placeholder(field, String(value));
      return;
    }
    if (Array.isArray(value)) for (const v of value) this.#learn(v);
    else if (value && typeof value === 'object')
      for (const [k, v] of Object.entries(value)) this.#learn(v, k);
  }

  #text(s: string): string {
    let out = s;
    for (const secret of this.#secrets) out = out.split(secret).join('«redacted»');
    for (const [value, p] of this.#values) out = out.split(value).join(p);
    return out;
  }

  #apply(value: unknown): unknown {
    if (typeof value === 'string') return this.#text(value);
    if (typeof value === 'number' && this.#values.has(String(value))) return this.#values.get(String(value));
    if (Array.isArray(value)) return value.map((v) => this.#apply(v));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.#apply(v)]));
    }
    return value;
  }

  /** The redacted copy of `value`. */
  redact<T>(value: T): T {
    this.#learn(value);
    return this.#apply(value) as T;
  }
}

function errorOf(error: unknown): { code: string; message: string } {
  const e = error as { code?: unknown; message?: unknown; name?: unknown };
  return {
    code: typeof e?.code === 'string' ? e.code : String(e?.name ?? 'error'),
    message: String(e?.message ?? error),
  };
}

/** Creates (or empties) `path` and starts a recording. */
export function createRecorder(path: string, options: RecorderOptions = {}): Recorder {
  const now = options.now ?? systemClock.now;
  const redactor = new Redactor(options.redact ?? DEFAULT_REDACTED_FIELDS, options.secrets ?? []);
  const out: WriteStream = createWriteStream(path, { flags: 'w' });
  let closed = false;
  const write = (record: RecordLine) => {
    if (closed) return;
    out.write(`${JSON.stringify(redactor.redact(record))}\n`);
  };
  write({ type: 'start', version: 1, at: now() });
  const recorder: Recorder = {
    update(update) {
      const parsed = typeof update === 'string' ? (JSON.parse(update) as Record<string, unknown>) : update;
      write({ type: 'update', at: now(), update: parsed as Record<string, unknown> });
    },
    task(outcome) {
      if (outcome.status === 'cancelled' && !outcome.error) return; // cancelled meanwhile: nothing ran to its end
      write({
        type: 'task',
        at: now(),
        task: outcome.task,
        conversation: outcome.conversationKey,
        ...(outcome.chatId !== undefined ? { chat: outcome.chatId } : {}),
        attempt: outcome.attempt,
        input: outcome.input,
        ...(outcome.error ? { error: outcome.error } : { result: outcome.result ?? null }),
        ...(outcome.status === 'retry' ? { retried: true as const } : {}),
      });
    },
    call(op, args, outcome) {
      const record: CallRecord = { type: 'call', at: now(), op, args };
      if ('result' in outcome) record.result = outcome.result;
      else record.error = errorOf(outcome.error);
      write(record);
    },
    wrapApi<T extends Caller>(api: T): T {
      return new Proxy(api, {
        get(target, key) {
          if (key !== 'call') {
            const value = Reflect.get(target, key);
            return typeof value === 'function' ? value.bind(target) : value;
          }
          return async (op: string, args: Record<string, unknown>, callOptions?: unknown) => {
            const call = target.call as (...a: unknown[]) => Promise<unknown>;
            // Reads are not the flows' doing; getUpdates' results are recorded once, as accepted updates.
            if (!isWrite(op)) return call.call(target, op, args, callOptions);
            try {
              const result = await call.call(target, op, args, callOptions);
              recorder.call(op, args, { result });
              return result;
            } catch (error) {
              recorder.call(op, args, { error });
              throw error;
            }
          };
        },
      });
    },
    event(row) {
      if (closed || row.kind !== 'event') return;
      const event = JSON.parse(row.payload) as StoredEvent;
      write({ type: 'event', at: row.at, conversation: row.conversationKey, event });
    },
    accepted(payloads) {
      if (closed) return;
      for (const payload of payloads) recorder.update(payload);
    },
    addSecret(secret) {
      redactor.addSecret(secret);
    },
    close() {
      if (closed) return Promise.resolve();
      write({ type: 'end', at: now() });
      closed = true;
      return new Promise((resolve) => out.end(resolve));
    },
  };
  return recorder;
}
