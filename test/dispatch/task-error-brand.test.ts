/**
 * A project's registry is loaded through tsx with its own copy of botflow's modules: a TaskError (or a
 * client error) made by that copy is still recognised by the engine's copy, and keeps its code.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, NetworkError, UsageError } from '../../src/client/errors.ts';
import { runAttempt } from '../../src/dispatch/tasks/attempt.ts';
import { TaskError } from '../../src/dispatch/tasks/task.ts';
import type { TaskRow } from '../../src/store/tasks.ts';

/** The same modules loaded a second time, as tsx's scoped loader does for a registry. */
async function secondCopy() {
  // A query string makes the module loader evaluate the file again: a second copy of its classes.
  const copy = (path: string) => import(/* @vite-ignore */ `${path}?copy`);
  const task = (await copy(
    '../../src/dispatch/tasks/task.ts',
  )) as typeof import('../../src/dispatch/tasks/task.ts');
  const errors = (await copy('../../src/client/errors.ts')) as typeof import('../../src/client/errors.ts');
  return { ...task, ...errors };
}

const row = (name: string): TaskRow => ({
  id: 1,
  conversationKey: 'u:1',
  revision: 1,
  stepInstance: 1,
  name,
  ref: 'find:task',
  input: '{}',
  scope: '{"vars":{}}',
  policy: '{}',
  chatId: null,
  idempotencyKey: 'k',
  createdAt: 0,
  status: 'running',
  attempts: 1,
  runAfter: 0,
  result: null,
  error: null,
  startedAt: 0,
  finishedAt: null,
});

describe('errors made by another copy of botflow', () => {
  it('a TaskError of the registry copy is a TaskError here, with its code', async () => {
    const copy = await secondCopy();
    expect(copy.TaskError).not.toBe(TaskError);
    const error = new copy.TaskError('sold_out', 'no more pizza', { retryable: true });
    expect(error instanceof TaskError).toBe(true);
    expect(new TaskError('x') instanceof copy.TaskError).toBe(true);
    expect(new Error('x') instanceof TaskError).toBe(false);
    expect({ code: 'sold_out' } instanceof TaskError).toBe(false);
    const settled = await runAttempt(row('order'), 1, new AbortController(), {
      tasks: {
        order: () => {
          throw error;
        },
      },
      clock: { now: () => 0, setTimer: () => undefined, clearTimer: () => {} },
    });
    expect(settled).toEqual({
      ok: false,
      error: { code: 'sold_out', message: 'no more pizza', retryable: true },
    });
  });

  it('client errors of another copy are recognised too; subclasses keep the ordinary check', async () => {
    const copy = await secondCopy();
    const api = new copy.ApiError({
      operation: 'sendMessage',
      status: 503,
      code: 'x',
      platformMessage: '',
      body: '',
    });
    expect(api instanceof ApiError).toBe(true);
    expect(api instanceof NetworkError).toBe(false);
    const net = new copy.NetworkError({
      operation: 'o',
      sent: false,
      code: 'ECONNREFUSED',
      message: 'm',
      cause: null,
    });
    expect(net instanceof NetworkError).toBe(true);
    expect(new copy.UsageError([{ field: 'f', message: 'm' }]) instanceof UsageError).toBe(true);
    class SoldOut extends TaskError {}
    expect(new SoldOut('sold_out') instanceof TaskError).toBe(true);
    expect(new TaskError('other') instanceof SoldOut).toBe(false);
    expect(new SoldOut('sold_out') instanceof SoldOut).toBe(true);
  });
});
