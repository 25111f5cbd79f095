// The shared rate budget on PostgreSQL (issue 28): several processes' budgets on one database never grant
// more than the limit in any window, and a call that cannot get a start in time is refused.
import { afterAll, describe, expect, it } from 'vitest';
import { rowBudget } from '../../src/client/scheduler/row-budget.ts';
import { BudgetExhausted } from '../../src/client/scheduler/shared-budget.ts';
import { openPostgres, type PostgresDatabase } from '../../src/store/postgres/database.ts';
import { pgKvUpdate } from '../../src/store/postgres/settings.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

describe.skipIf(!up)('the rate budget shared through a PostgreSQL row', () => {
  it('grants at most the limit in any window across three processes, and refuses past maxWaitMs', async () => {
    const db = await migratedDatabase();
    cleanup.push(() => db.drop());
    const pools: PostgresDatabase[] = [];
    for (let i = 0; i < 3; i++) {
      const pg = await openPostgres({ url: db.url, max: 2 });
      cleanup.push(() => pg.close());
      pools.push(pg);
    }
    const budgets = pools.map((pg) =>
      rowBudget((key, initial, change) => pgKvUpdate(pg.pool, key, initial, change), {
        limit: 2,
        applies: () => true,
        windowMs: 500,
      }),
    );
    const granted: number[] = [];
    await Promise.all(
      Array.from({ length: 9 }, async (_, i) => {
        const grant = await budgets[i % 3]!.acquire(10_000);
        granted.push(Date.now());
        await new Promise((resolve) => setImmediate(resolve)); // the call: a turn of the event loop
        grant.settle();
      }),
    );
    granted.sort((a, b) => a - b);
    for (let i = 2; i < granted.length; i++)
      expect(granted[i]! - granted[i - 2]!).toBeGreaterThanOrEqual(480);
    // Full now (two starts in the window): a call that may wait 50 ms only is refused.
    await budgets[0]!.acquire(10_000);
    await budgets[1]!.acquire(10_000);
    await expect(budgets[2]!.acquire(50)).rejects.toBeInstanceOf(BudgetExhausted);
  });
});
