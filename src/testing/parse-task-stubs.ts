/** The `tasks:` block of a transcript: stubs of the registry's tasks. */
import { fail, isObj, keysOf, type Obj } from './parse-helpers.ts';
import type { TaskStub } from './transcript.ts';

/**
 * `tasks: { find_slots: { result: [...] }, save: [{ input: {slot: "18:00"}, result: {id: 1} }, { error: slot_taken }] }`:
 * one stub or a list (tried in order; a stub with `input` answers matching calls, the others answer one
 * call each, the last one every call after).
 */
export function taskStubsOf(v: unknown): Record<string, TaskStub[]> {
  const example = 'e.g. tasks: { find_slots: { result: ["18:00"] }, save_booking: { error: slot_taken } }';
  if (!isObj(v)) fail(['tasks'], 'tasks maps task names to stubs', example);
  return Object.fromEntries(
    Object.entries(v).map(([name, given]) => {
      const list = Array.isArray(given) ? given : [given];
      if (list.length === 0) fail(['tasks', name], 'an empty list of stubs', example);
      return [
        name,
        list.map((s, i) => {
          const at = Array.isArray(given) ? ['tasks', name, i] : ['tasks', name];
          if (!isObj(s))
            fail(at, 'a stub is { result } | { error } | { timeout: true }, with an optional input', example);
          keysOf(s, at, ['input', 'result', 'error', 'timeout']);
          const outcomes = ['result', 'error', 'timeout'].filter((k) => k in s);
          if (outcomes.length !== 1)
            fail(
              at,
              'a stub says exactly one of result, error or timeout',
              'e.g. { result: ["18:00"] } or { error: slot_taken }',
            );
          if (s.input !== undefined && !isObj(s.input))
            fail([...at, 'input'], 'input is a mapping (matched partially)');
          if ('timeout' in s && s.timeout !== true) fail([...at, 'timeout'], 'write timeout: true');
          const stub: TaskStub = { ...(s.input ? { input: s.input as Obj } : {}) };
          if ('result' in s) stub.result = s.result;
          if ('timeout' in s) stub.timeout = true;
          if ('error' in s) {
            const e = s.error;
            if (typeof e === 'string') stub.error = { code: e };
            else if (isObj(e) && typeof e.code === 'string')
              stub.error = { code: e.code, ...(typeof e.message === 'string' ? { message: e.message } : {}) };
            else fail([...at, 'error'], 'error is a code, or { code, message }', 'e.g. error: slot_taken');
          }
          return stub;
        }),
      ];
    }),
  );
}
