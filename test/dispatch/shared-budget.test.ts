// The scheduler under a budget shared with other processes (issue 28): while it applies, every call takes
// a start in it; a "typing…" that finds none within its time-to-live is dropped, counted and logged.
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import { BudgetExhausted, localSharedBudget } from '../../src/client/scheduler/shared-budget.ts';
import type { ApiCaller } from '../../src/client/scheduler/types.ts';

function recordingApi() {
  const calls: { op: string; at: number }[] = [];
  const api: ApiCaller = {
    call: async (op) => {
      calls.push({ op, at: Date.now() });
      return op === 'sendAction' ? { success: true } : { user_id: 1 };
    },
  } as ApiCaller;
  return { api, calls };
}

describe('Scheduler with a shared budget', () => {
  it('spaces its calls by the budget while it applies, and not once it does not', async () => {
    const { api, calls } = recordingApi();
    let applies = true;
    const budget = localSharedBudget({
      limit: 2,
      windowMs: 300,
      arrivalBoundMs: 300,
      applies: () => applies,
    });
    const scheduler = new Scheduler({ api, sharedBudget: budget });
    await Promise.all(Array.from({ length: 4 }, () => scheduler.submit({ op: 'getMyInfo', args: {} })));
    const times = calls.map((c) => c.at);
    expect(times[2]! - times[0]!).toBeGreaterThanOrEqual(290);
    expect(times[3]! - times[1]!).toBeGreaterThanOrEqual(290);
    applies = false;
    const before = Date.now();
    await Promise.all(Array.from({ length: 4 }, () => scheduler.submit({ op: 'getMyInfo', args: {} })));
    expect(Date.now() - before).toBeLessThan(250);
    scheduler.close();
  });

  it('drops a "typing…" that finds no start within its time-to-live: counted, one log line', async () => {
    const { api, calls } = recordingApi();
    const budget = localSharedBudget({ limit: 1, windowMs: 1000, arrivalBoundMs: 1000 });
    const warnings: { fields: object; message: string }[] = [];
    const scheduler = new Scheduler({
      api,
      sharedBudget: budget,
      logger: { warn: (fields, message) => warnings.push({ fields, message }) },
    });
    const typing = (chat: number) =>
      scheduler.submit({
        op: 'sendAction',
        args: { chat_id: chat, action: 'typing_on' },
        priority: 'bulk',
        ttlMs: 200,
      });
    const results = await Promise.allSettled([typing(1), typing(2), typing(3)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(calls).toHaveLength(1);
    const metrics = scheduler.metrics();
    expect(metrics.chatActions.expired).toBe(2);
    expect(metrics.deadLetters.byReason.expired).toBe(2);
    const dropped = warnings.filter((w) => /chat action\(s\) \("typing…"\) dropped/.test(w.message));
    expect(dropped).toHaveLength(1); // at most one line every 10 s
    budget.close();
    await expect(budget.acquire(1000)).rejects.toBeInstanceOf(BudgetExhausted);
    scheduler.close();
  });
});
