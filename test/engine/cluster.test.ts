// Several engines on one PostgreSQL database, on real parts: the sandbox over HTTP delivering to a webhook
// receiver that commits to PostgreSQL, and two or three cluster engines sharing the partitions, one of
// them the dispatcher. People act through the sandbox; assertions read what they see.
import { describe, expect, it } from 'vitest';
import { openPostgres, PARTITIONS } from '../../src/store/postgres/database.ts';
import { type ClusterProcess, useClusterHarness } from '../support/cluster-harness.ts';
import { eventually } from '../support/eventually.ts';
import { postgresAvailable } from '../support/postgres.ts';
import { signupFlow } from './fixtures.ts';

const up = await postgresAvailable();
const PATIENT = { timeoutMs: 20_000, tolerateThrows: true };

describe.skipIf(!up)('several engines on one PostgreSQL database', () => {
  const cluster = useClusterHarness();
  const processes = cluster.processes;
  const startProcess = (name: string) => cluster.start(name, { flows: [signupFlow] });
  const stopProcess = (process: ClusterProcess) => cluster.stop(process);
  const roles = () => processes.map((p) => p.engine.role());

  async function converse(count: number, from: number) {
    const people = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        cluster.sandbox.control.createUser({ first_name: `P${from + i}` }),
      ),
    );
    await Promise.all(people.map((p) => cluster.sandbox.control.startBot(p.user_id)));
    await hear(people, ['What is your name?']);
    await Promise.all(
      people.map((p) => cluster.sandbox.control.sendMessage(p.user_id, 'dialog', { text: `N${p.user_id}` })),
    );
    await hear(people, ['What is your name?', (id) => `Hello N${id}! Pick a plan:`]);
  }

  /** Waits until each person saw exactly these bot messages, in order; on timeout, says where things stand. */
  async function hear(people: { user_id: number }[], lines: (string | ((id: number) => string))[]) {
    await eventually(
      `everyone hears ${lines.length} message(s) once`,
      async () => {
        for (const p of people) {
          const texts = (await cluster.sandbox.control.view(p.user_id)).messages.filter(
            (m) => m.from === 'bot',
          );
          expect(texts.map((m) => m.text)).toEqual(
            lines.map((l) => (typeof l === 'string' ? l : l(p.user_id))),
          );
        }
        return true;
      },
      PATIENT,
    ).catch(async (error: unknown) => {
      const admin = await openPostgres({ url: cluster.url, max: 1 });
      const state = await admin.pool.query(
        "SELECT 'inbox' AS t, status, count(*)::int AS n FROM inbox GROUP BY status UNION ALL " +
          "SELECT 'outbox', status, count(*)::int FROM outbox GROUP BY status UNION ALL " +
          "SELECT 'lease ' || name, coalesce(owner, '-'), (expires_at - botflow_now_ms())::int FROM leases " +
          "WHERE name = 'dispatcher'",
      );
      await admin.close();
      const held = roles().map((r) => ({
        partitions: r.partitions.length,
        dispatcher: r.dispatcher,
        members: r.members,
      }));
      console.error(JSON.stringify({ held, state: state.rows }));
      throw error;
    });
  }

  it('shares the partitions between the processes, elects one dispatcher and answers everyone once', async () => {
    await startProcess('a');
    await startProcess('b');
    await eventually(
      'two processes share every partition, one dispatcher',
      () => {
        const held = roles().flatMap((r) => r.partitions);
        expect(held.sort((x, y) => x - y)).toEqual([...Array(PARTITIONS).keys()]);
        expect(roles().every((r) => r.partitions.length > 0 && r.members === 2)).toBe(true);
        expect(roles().filter((r) => r.dispatcher)).toHaveLength(1);
        return true;
      },
      PATIENT,
    );
    await converse(12, 1);
  });

  it('rebalances when a process joins, and hands everything over when one stops', async () => {
    await startProcess('c');
    await eventually(
      'three processes share the partitions',
      () => {
        expect(roles().every((r) => r.members === 3 && r.partitions.length > 0)).toBe(true);
        expect(roles().flatMap((r) => r.partitions)).toHaveLength(PARTITIONS);
        return true;
      },
      PATIENT,
    );
    await converse(6, 100);
    const dispatcher = processes.find((p) => p.engine.role().dispatcher)!;
    await stopProcess(dispatcher);
    await eventually(
      'the rest took everything over',
      () => {
        expect(roles().flatMap((r) => r.partitions)).toHaveLength(PARTITIONS);
        expect(roles().filter((r) => r.dispatcher)).toHaveLength(1);
        return true;
      },
      PATIENT,
    );
    await converse(6, 200);
  });
});
