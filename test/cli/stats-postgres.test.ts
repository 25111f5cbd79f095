/**
 * The funnel on PostgreSQL: two processes' step transactions write the step log in the shared database
 * (`botflow_apply_batch`), branches passed through included, and `botflow stats --database-url` reads them. Real server, the sandbox over HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { command } from '../../src/cli/stats-command.ts';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { type FlowFunnel, funnelOfPages } from '../../src/runtime/funnel.ts';
import { pgStepLog } from '../../src/store/postgres/sessions.ts';
import { useClusterHarness } from '../support/cluster-harness.ts';
import { eventually } from '../support/eventually.ts';
import { postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();

const FLOW = `flow: order
start: size
triggers: [{ bot_started: true }]
steps:
  size:
    type: input
    say: How many?
    input: integer
    retries: { max: 3, exhausted: { goto: done } }
    save: size
    next: check
  check: { type: branch, cases: [{ when: { var: size, ge: 1 }, goto: done }], else: done }
  done: { type: end, say: "Thanks: {{size}}." }
`;

const log = console.log;
afterEach(() => {
  console.log = log;
});

describe.skipIf(!up)('botflow stats on PostgreSQL', () => {
  const cluster = useClusterHarness();

  it('counts the steps both processes logged, with the refused answers', async () => {
    const { flows, problems } = compileSources(
      [{ file: 'order.flow.yaml', source: FLOW }],
      EMPTY_REGISTRY,
      new Map(),
    );
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    await cluster.start('a', { flows });
    await cluster.start('b', { flows });
    const { control } = cluster.sandbox;
    const people = await Promise.all(['Ann', 'Bob', 'Cy'].map((n) => control.createUser({ first_name: n })));
    for (const p of people) await control.startBot(p.user_id);
    const hears = (userId: number, n: number) =>
      eventually(
        `person ${userId} to have heard ${n} messages`,
        async () => {
          expect(await cluster.botTexts(userId)).toHaveLength(n);
          return true;
        },
        { timeoutMs: 20_000, tolerateThrows: true },
      );
    for (const p of people) await hears(p.user_id, 1);
    const [ann, bob] = people;
    await control.sendMessage(ann!.user_id, 'dialog', { text: 'many' });
    await hears(ann!.user_id, 2);
    await control.sendMessage(ann!.user_id, 'dialog', { text: '2' });
    await control.sendMessage(bob!.user_id, 'dialog', { text: '3' });
    await hears(ann!.user_id, 3);
    await hears(bob!.user_id, 2);

    const out: string[] = [];
    console.log = (line: string) => out.push(line);
    expect(await command.run(['--database-url', cluster.url, '--json', '/nonexistent'])).toBe(0);
    console.log = log;
    const [funnel] = JSON.parse(out.join('\n')) as FlowFunnel[];
    expect(funnel).toMatchObject({ flowId: 'order', sessions: 3, ended: 2 });
    expect(funnel!.steps).toEqual([
      expect.objectContaining({ step: 'size', reached: 3, waiting: 1, retries: 1, retriedSessions: 1 }),
      // A branch is passed through in the step's transaction: reached, never waited at.
      expect.objectContaining({ step: 'check', reached: 2, waiting: 0, stopped: 0, medianMs: 0 }),
      expect.objectContaining({ step: 'done', reached: 2, ended: 2 }),
    ]);
    expect(funnel!.steps[0]!.medianMs).toBeGreaterThan(0);
    // Read two lines a page, the log tallies the same (the keyset paging loses and repeats nothing).
    const paged = await funnelOfPages(pgStepLog(cluster.processes[0]!.pg.pool, { pageSize: 2 }), flows);
    expect(paged).toEqual([funnel]);

    // Pruning keeps the shared database small: the step log after their retention, settled rows after theirs.
    await cluster.processes[0]!.engine.drain();
    const pruned = await cluster.processes[0]!.engine.prune(-1000, -1000);
    expect(pruned).toMatchObject({ stepLog: 8, timers: 0 }); // 3 entered, 1 retry, 2 passed, 2 finished
    expect(pruned.outbox).toBeGreaterThanOrEqual(6); // every call sent
    const left: unknown[] = [];
    for await (const line of cluster.processes[1]!.engine.stepLog()) left.push(line);
    expect(left).toEqual([]);
  });
});
