/**
 * A task's input field that its zod schema does not name is dropped by zod without a word: the runner
 * says so (a structured warning with the task and the step, once, not per attempt), and the task still runs.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAttempt } from '../../src/dispatch/tasks/attempt.ts';
import { defineTask } from '../../src/dispatch/tasks/task.ts';
import { systemClock } from '../../src/store/ports/clock.ts';
import type { TaskRow } from '../../src/store/ports/tasks.ts';

function logLines() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

const row = (input: unknown, ref = 'order:task'): TaskRow => ({
  id: 1,
  conversationKey: 'u:7',
  revision: 1,
  stepInstance: 1,
  name: 'order_pizza',
  ref,
  input: JSON.stringify(input),
  scope: JSON.stringify({ vars: {} }),
  policy: JSON.stringify({ attempts: 3 }),
  chatId: 7,
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

describe('a task input field its schema does not name', () => {
  it('is reported once with the task and the step, and the task runs without it', async () => {
    const seen: unknown[] = [];
    const tasks = {
      order_pizza: defineTask({
        input: z.object({ pizza: z.string(), size: z.string().optional() }),
        run: (input) => {
          seen.push(input);
          return 'ok';
        },
      }),
    };
    const { lines, logger } = logLines();
    const o = { tasks, clock: systemClock, logger };
    const input = { pizza: 'margherita', szie: 'large' };
    for (const attempt of [1, 2]) {
      const settled = await runAttempt(row(input), attempt, new AbortController(), o);
      expect(settled).toEqual({ ok: true, result: 'ok' });
    }
    await runAttempt(row(input, 'other_step:task'), 1, new AbortController(), o);
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual([{ pizza: 'margherita' }, { pizza: 'margherita' }, { pizza: 'margherita' }]);
    const warnings = lines.filter((l) => l.level === 40);
    expect(warnings).toEqual([
      expect.objectContaining({ task: 'order_pizza', step: 'order', fields: ['szie'], conversation: 'u:7' }),
      expect.objectContaining({ task: 'order_pizza', step: 'other_step', fields: ['szie'] }),
    ]);
    expect(warnings[0]!.msg).toContain('with input field(s) its schema does not name: "szie"');
  });

  it('says nothing when every field is named, or when the schema keeps or refuses others', async () => {
    const { lines, logger } = logLines();
    const run = () => 'ok';
    const tasks = {
      order_pizza: defineTask({ input: z.looseObject({ pizza: z.string() }), run }),
    };
    await runAttempt(row({ pizza: 'x', extra: 1 }), 1, new AbortController(), {
      tasks,
      clock: systemClock,
      logger,
    });
    const strict = { order_pizza: defineTask({ input: z.strictObject({ pizza: z.string() }), run }) };
    const refused = await runAttempt(row({ pizza: 'x', extra: 1 }), 1, new AbortController(), {
      tasks: strict,
      clock: systemClock,
      logger,
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    await new Promise((r) => setImmediate(r));
    expect(lines.filter((l) => l.level === 40)).toEqual([]);
  });
});
