/**
 * The batch loop over a store that answers later (PostgreSQL's shape), with a stand-in planner: what it
 * reads, in which order it commits, and that no pending row is left behind.
 */
import { describe, expect, it } from 'vitest';
import { BatchLoop } from '../../src/engine/lane/batches.ts';
import type { EventPlan } from '../../src/engine/lane/planner.ts';
import type { BatchPlanner } from '../../src/engine/lane/processor.ts';
import { SessionCache } from '../../src/engine/lane/session-cache.ts';
import type { InboxEvent } from '../../src/store/engine-inbox.ts';
import type { EngineStore } from '../../src/store/ports/engine.ts';
import type { ApplyResult, PlannedWrites } from '../../src/store/write-plan.ts';

const event = (id: number): InboxEvent => ({
  id,
  kind: 'update',
  conversationKey: `u:${id}`,
  payload: '{}',
  receivedAt: 0,
});

/** An inbox in memory whose commits wait until the test lets them through. */
function slowStore() {
  const pending = new Map<number, InboxEvent>();
  const commits: { ids: number[]; release: () => void }[] = [];
  const store = {
    kind: 'postgres',
    synchronous: false,
    pending: async (_p: unknown, afterId: number, limit: number, exclude?: ReadonlySet<number>) =>
      [...pending.values()]
        .filter((e) => e.id > afterId && !exclude?.has(e.id))
        .sort((a, b) => a.id - b.id)
        .slice(0, limit),
    sessions: async () => new Map(),
    apply: (batch: PlannedWrites[]) =>
      new Promise<ApplyResult[]>((resolve) => {
        commits.push({
          ids: batch.map((w) => w.inboxId),
          release: () => {
            for (const w of batch) pending.delete(w.inboxId);
            resolve(batch.map(() => ({ status: 'applied', dropped: 0 })));
          },
        });
      }),
  } as unknown as EngineStore;
  return { store, pending, commits };
}

const planner = {
  plan: (rows: readonly InboxEvent[]) =>
    rows.map((row) => ({
      row,
      ops: [],
      outcome: { conversationKey: row.conversationKey, status: 'done', calls: 0 },
    })),
  settle: (plans: readonly EventPlan[]) => plans.map((p) => p.outcome),
  forgetPlanned: () => {},
  handOver: () => [], // no operators' chat here (lane/operators.ts)
  handoffSteps: () => new Map(), // no handoff steps either (lane/handoff-queue.ts)
} as unknown as BatchPlanner;

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('the batch loop', () => {
  it('reads from the first pending row, leaving out those in flight: a row that turned up below one in flight is not left behind', async () => {
    const { store, pending, commits } = slowStore();
    const loop = new BatchLoop({
      store,
      planner,
      cache: new SessionCache(10),
      member: 'm',
      partitions: () => 'all',
      now: () => 0,
      batchSize: 10,
      restore: () => {},
      report: () => {},
      wake: () => {},
      empty: () => {},
      leaseLost: () => false,
    });
    pending.set(5, event(5));
    loop.pump();
    await turn();
    expect(commits.map((c) => c.ids)).toEqual([[5]]);
    // Another process's append with a lower id becomes visible while batch [5] commits.
    pending.set(3, event(3));
    loop.pump();
    await turn();
    expect(commits.map((c) => c.ids)).toEqual([[5], [3]]);
    commits[0]!.release();
    commits[1]!.release();
    await turn();
    loop.pump();
    await turn();
    expect(commits).toHaveLength(2); // nothing is planned twice
  });

  it('commits batches in the order it planned them, planning the next while one commits', async () => {
    const { store, pending, commits } = slowStore();
    const loop = new BatchLoop({
      store,
      planner,
      cache: new SessionCache(10),
      member: 'm',
      partitions: () => 'all',
      now: () => 0,
      batchSize: 2,
      restore: () => {},
      report: () => {},
      wake: () => {},
      empty: () => {},
      leaseLost: () => false,
    });
    for (const id of [1, 2, 3, 4, 5]) pending.set(id, event(id));
    loop.pump();
    await turn();
    loop.pump();
    await turn();
    loop.pump(); // depth 2: a third batch waits
    await turn();
    expect(commits.map((c) => c.ids)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    commits[0]!.release();
    commits[1]!.release();
    await turn();
    loop.pump();
    await turn();
    expect(commits.map((c) => c.ids).at(-1)).toEqual([5]);
  });

  it("plans people's events before campaign entries read with them; a campaign entry waits one batch at most, and a conversation keeps its order (issue 35)", async () => {
    const { store, pending, commits } = slowStore();
    const loop = new BatchLoop({
      store,
      planner,
      cache: new SessionCache(10),
      member: 'm',
      partitions: () => 'all',
      now: () => 500,
      batchSize: 10,
      restore: () => {},
      report: () => {},
      wake: () => {},
      empty: () => {},
      leaseLost: () => false,
    });
    const campaign = (id: number, key: string): InboxEvent => ({
      ...event(id),
      kind: 'campaign',
      conversationKey: key,
      receivedAt: 400,
    });
    pending.set(1, campaign(1, 'u:a'));
    pending.set(2, campaign(2, 'u:b'));
    pending.set(3, event(3));
    pending.set(4, { ...event(4), conversationKey: 'u:b' }); // after u:b's campaign entry: waits with it
    pending.set(5, { ...campaign(5, 'u:c'), receivedAt: -600 }); // waited a second already: goes now
    loop.pump();
    await turn();
    expect(commits.map((c) => c.ids)).toEqual([[3, 5]]);
    loop.pump(); // the next batch, planned while the first commits
    await turn();
    expect(commits.map((c) => c.ids)).toEqual([
      [3, 5],
      [1, 2, 4],
    ]);
  });
});
