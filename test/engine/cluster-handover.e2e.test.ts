// The dispatcher role moves while its holder is alive (its lease lapsed: a slow database, a paused VM):
// the old holder still sends what its scheduler holds, and the new one waits for that before it sends, so
// the platform never sees both at once. Real PostgreSQL, the sandbox over HTTP, its log of requests.
import { describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/postgres/database.ts';
import { windowPeaks } from '../dispatch/request-log-checks.ts';
import { useClusterHarness } from '../support/cluster-harness.ts';
import { eventually } from '../support/eventually.ts';
import { postgresAvailable } from '../support/postgres.ts';
import { signupFlow } from './fixtures.ts';

const up = await postgresAvailable();

describe.skipIf(!up)('a dispatcher losing its lease while alive', () => {
  const cluster = useClusterHarness();

  it('keeps both processes together within the limits: the new one waits for what the old one still sends', async () => {
    const a = await cluster.start('a', { flows: [signupFlow], tickMs: 100, leaseMs: 1000 });
    await eventually('a to be the dispatcher', async () => a.engine.role().dispatcher);
    const b = await cluster.start('b', { flows: [signupFlow], tickMs: 100, leaseMs: 1000 });
    const { control } = cluster.sandbox;
    const since = Date.now();
    const start = async (count: number) => {
      const people = await Promise.all(
        Array.from({ length: count }, (_, i) => control.createUser({ first_name: `P${i}` })),
      );
      await Promise.all(people.map((p) => control.startBot(p.user_id)));
      return people;
    };
    const admin = await openPostgres({ url: cluster.url, max: 1 });
    try {
      const first = await start(90);
      // A holds a queue of prompts (30 a second): then its lease goes to B while A still runs.
      await eventually('a to have claimed most prompts', async () => {
        const { rows } = await admin.pool.query(
          "SELECT count(*)::int AS n FROM outbox WHERE status = 'sending' AND claimed_by = 'a'",
        );
        return rows[0].n >= 40;
      });
      await admin.pool.query(
        "UPDATE leases SET owner = 'b', epoch = epoch + 1, expires_at = botflow_now_ms() + 3000 " +
          "WHERE name = 'dispatcher'",
      );
      await eventually('b to be the dispatcher', async () => b.engine.role().dispatcher);
      const second = await start(60);
      await eventually(
        'everyone to hear the first question once',
        async () => {
          for (const p of [...first, ...second]) {
            const texts = (await control.view(p.user_id)).messages.filter((m) => m.from === 'bot');
            expect(texts.map((m) => m.text)).toEqual(['What is your name?']);
          }
          return true;
        },
        { timeoutMs: 30_000, tolerateThrows: true },
      );
    } finally {
      await admin.close();
    }
    const sends = cluster.sandbox.requestLog.list(since).filter((r) => r.op === 'sendMessage');
    expect(sends).toHaveLength(150);
    expect(windowPeaks(sends).global).toBeLessThanOrEqual(30);
  }, 60_000);
});
