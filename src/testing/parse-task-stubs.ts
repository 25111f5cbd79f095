/** The `tasks:` block of a transcript: stubs of the registry's tasks, or `real` to run their own code. */
import { fail, isObj, keysOf, type Obj } from './parse-helpers.ts';
import type { TaskStub, TranscriptTasks } from './transcript.ts';

const EXAMPLE = 'e.g. tasks: { find_slots: { result: ["18:00"] }, save_booking: { error: slot_taken } }';

/**
 * `tasks: real` runs every task's own code (the registry's); `tasks: { find_menu: real, order: … }` runs
 * that one's. Else a stub or a list: `tasks: { find_slots: { result: [...] }, save: [{ input: {slot: "18:00"},
 * result: {id: 1} }, { error: slot_taken }] }` (tried in order; a stub with `input` answers matching calls,
 * the others answer one call each, the last one every call after).
 */
export function transcriptTasksOf(v: unknown): TranscriptTasks {
  if (v === 'real') return { stubs: {}, real: true };
  if (!isObj(v)) fail(['tasks'], 'tasks is real, or maps task names to stubs (or real)', EXAMPLE);
  const real = Object.keys(v).filter((name) => v[name] === 'real');
  const stubs = taskStubsOf(Object.fromEntries(Object.entries(v).filter(([, s]) => s !== 'real')));
  return { stubs, ...(real.length ? { real } : {}) };
}

/** The stubs of a `tasks:` mapping (without its `real` entries). */
export function taskStubsOf(v: unknown): Record<string, TaskStub[]> {
  if (!isObj(v)) fail(['tasks'], 'tasks maps task names to stubs', EXAMPLE);
  return Object.fromEntries(
    Object.entries(v).map(([name, given]) => {
      const list = Array.isArray(given) ? given : [given];
      if (list.length === 0) fail(['tasks', name], 'an empty list of stubs', EXAMPLE);
      return [
        name,
        list.map((s, i) => stubOf(s, Array.isArray(given) ? ['tasks', name, i] : ['tasks', name])),
      ];
    }),
  );
}

function stubOf(s: unknown, at: (string | number)[]): TaskStub {
  if (!isObj(s))
    fail(
      at,
      'a stub is { result } | { error } | { throw } | { timeout: true }, with an optional input; or real',
      EXAMPLE,
    );
  keysOf(s, at, ['input', 'result', 'error', 'throw', 'timeout']);
  const outcomes = ['result', 'error', 'throw', 'timeout'].filter((k) => k in s);
  if (outcomes.length !== 1)
    fail(
      at,
      'a stub says exactly one of result, error, throw or timeout',
      'e.g. { result: ["18:00"] }, { error: slot_taken } or { throw: ECONNREFUSED }',
    );
  if (s.input !== undefined && !isObj(s.input))
    fail([...at, 'input'], 'input is a mapping (matched partially)');
  if ('timeout' in s && s.timeout !== true) fail([...at, 'timeout'], 'write timeout: true');
  const stub: TaskStub = { ...(s.input ? { input: s.input as Obj } : {}) };
  if ('result' in s) stub.result = s.result;
  if ('timeout' in s) stub.timeout = true;
  if ('throw' in s) {
    if (typeof s.throw !== 'string')
      fail(
        [...at, 'throw'],
        'throw is the text of an unexpected error',
        'e.g. throw: "connect ECONNREFUSED"',
      );
    stub.throw = s.throw;
  }
  if ('error' in s) {
    const e = s.error;
    if (typeof e === 'string') stub.error = { code: e };
    else if (isObj(e) && typeof e.code === 'string') {
      keysOf(e, [...at, 'error'], ['code', 'message', 'retryable']);
      if (e.retryable !== undefined && typeof e.retryable !== 'boolean')
        fail([...at, 'error', 'retryable'], 'retryable is true or false');
      stub.error = {
        code: e.code,
        ...(typeof e.message === 'string' ? { message: e.message } : {}),
        ...(e.retryable === true ? { retryable: true } : {}),
      };
    } else
      fail(
        [...at, 'error'],
        'error is a code, or { code, message, retryable }',
        'e.g. error: slot_taken, or error: { code: unavailable, retryable: true }',
      );
  }
  return stub;
}
