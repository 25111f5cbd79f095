/**
 * Which failures a task tries again: timeouts and unexpected errors by default, `retry.on` adds codes (it
 * never switches the defaults off), `retry.only` retries exactly its codes.
 */
import { describe, expect, it } from 'vitest';
import { retryable, verdictOf } from '../../src/dispatch/tasks/attempt.ts';
import { DEFAULT_TASK_POLICY, type TaskPolicy } from '../../src/dispatch/tasks/task.ts';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import type { TaskRow } from '../../src/store/tasks.ts';

const policy = (p: Partial<TaskPolicy>): TaskPolicy => ({ ...DEFAULT_TASK_POLICY, ...p });
const failure = (code: string, retryable = false) => ({ code, message: code, retryable });

describe('the retry rule', () => {
  it('retries timeouts and unexpected errors by default, and TaskErrors thrown retryable', () => {
    const p = policy({});
    expect(retryable(failure('timeout'), p)).toBe(true);
    expect(retryable(failure('error', true), p)).toBe(true);
    expect(retryable(failure('unavailable', true), p)).toBe(true);
    expect(retryable(failure('sold_out'), p)).toBe(false);
    expect(retryable(failure('cancelled', true), p)).toBe(false);
  });

  it('on: [code] adds codes: a refused connection is still retried', () => {
    const p = policy({ retryOn: ['unavailable'] });
    expect(retryable(failure('unavailable'), p)).toBe(true);
    expect(retryable({ code: 'error', message: 'ECONNREFUSED' }, p)).toBe(true);
    expect(retryable(failure('error', true), p)).toBe(true);
    expect(retryable(failure('timeout'), p)).toBe(true);
    expect(retryable(failure('sold_out'), p)).toBe(false);
  });

  it('only: [code] retries exactly those codes', () => {
    const p = policy({ retryOnly: ['unavailable'] });
    expect(retryable(failure('unavailable'), p)).toBe(true);
    expect(retryable(failure('error', true), p)).toBe(false);
    expect(retryable(failure('timeout', true), p)).toBe(false);
    expect(retryable(failure('timeout'), policy({ retryOnly: ['timeout'] }))).toBe(true);
  });

  it('an unexpected error under on: [code] is tried again, by the verdict the runners share', () => {
    const row = {
      id: 1,
      ref: 'order:task',
      name: 'order',
      stepInstance: 1,
      revision: 1,
      policy: JSON.stringify({ attempts: 3, backoffMs: 1000, retryOn: ['unavailable'] }),
    } as TaskRow;
    const v = verdictOf(row, 1, { ok: false, error: failure('error', true) }, 5_000);
    expect(v).toMatchObject({ kind: 'retry', runAfter: 6_000 });
  });
});

describe('retry in flow files', () => {
  const flow = (retry: string) => `
flow: order
start: place
steps:
  place:
    type: message
    do:
      - task: order
        retry: ${retry}
        on_error: done
    next: done
  done: { type: end }
`;
  const compile = (retry: string) =>
    compileSources(
      [{ file: 'order.flow.yaml', source: flow(retry) }],
      defineRegistry({ tasks: { order: () => 1 } }),
      new Map(),
    );

  it('accepts on and only, not both', () => {
    expect(compile('{ attempts: 3, on: [unavailable] }').problems).toEqual([]);
    expect(compile('{ attempts: 3, only: [unavailable] }').problems).toEqual([]);
    const both = compile('{ attempts: 3, on: [a], only: [b] }').problems;
    expect(both.map((p) => p.message).join('\n')).toContain('on (codes added to the defaults) or only');
  });
});
