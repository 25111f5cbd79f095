// Durable tasks with several engines on one PostgreSQL database (real server, sandbox over HTTP): each task
// runs in the process owning its conversation, once per attempt; a task running in a process that stops is
// run again by the process that takes its partition over, with the same idempotency key, and the dialog
// goes on exactly once.
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry, type TaskDefinition } from '../../src/flows/registry.ts';
import { openPostgres } from '../../src/store/postgres/database.ts';
import { PgLeases } from '../../src/store/postgres/leases.ts';
import { PgTasks } from '../../src/store/postgres/tasks.ts';
import { type ClusterProcess, useClusterHarness } from '../support/cluster-harness.ts';
import { eventually } from '../support/eventually.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();

const FLOW = `
flow: booking
start: party
triggers: [{ bot_started: true }]
steps:
  party:
    type: input
    say: How many?
    input: integer
    retries: { max: 3, exhausted: { goto: sorry } }
    save: party
    next: find
  find:
    type: message
    say: Looking…
    do:
      - task: find_slots
        input: { party: "{{party}}" }
        save_as: slots
        timeout: 20s
        on_error:
          - { say: "Our system is down ({{task_error.code}}).", goto: sorry }
    next: pick
  pick: { type: end, say: "Free for {{slots}}" }
  sorry: { type: end, say: Sorry. }
`;

/** Every attempt: which process ran it, with which key and attempt number. */
type Run = { member: string; key: string; attempt: number; party: number };

describe.skipIf(!up)('durable tasks with several engines on PostgreSQL', () => {
  const cluster = useClusterHarness();
  const processes = cluster.processes;
  const runs: Run[] = [];
  /** Parties whose first attempt waits until its process stops. */
  const hold = new Set<number>();

  function startProcess(name: string) {
    const tasks: Record<string, TaskDefinition> = {
      find_slots: async (input, ctx) => {
        const party = (input as { party: number }).party;
        runs.push({ member: name, key: ctx.idempotencyKey, attempt: ctx.attempt, party });
        if (hold.has(party) && ctx.attempt === 1)
          await new Promise((_, reject) =>
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
          );
        return `${party} at 18:00`;
      },
    };
    const compiled = compileSources(
      [{ file: 'booking.flow.yaml', source: FLOW }],
      defineRegistry({ tasks }),
      new Map(),
    );
    expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
    return cluster.start(name, { flows: compiled.flows, tasks });
  }
  const stopProcess = (process: ClusterProcess) => cluster.stop(process, 200);
  const botTexts = (userId: number) => cluster.botTexts(userId);

  async function ask(party: number) {
    const person = await cluster.sandbox.control.createUser({ first_name: `P${party}` });
    await cluster.sandbox.control.startBot(person.user_id);
    await eventually('the first question', async () => (await botTexts(person.user_id)).length === 1, 20_000);
    await cluster.sandbox.control.sendMessage(person.user_id, 'dialog', { text: String(party) });
    return person.user_id;
  }

  it('runs each task once, in the process that owns the conversation', async () => {
    await startProcess('a');
    await startProcess('b');
    await eventually(
      'both share the partitions',
      () => processes.every((p) => p.engine.role().members === 2),
      20_000,
    );
    const people = await Promise.all([1, 2, 3, 4, 5, 6].map((party) => ask(party)));
    await eventually(
      'every dialog to end with its slots',
      async () => {
        for (const [i, id] of people.entries())
          expect(await botTexts(id)).toEqual(['How many?', 'Looking…', `Free for ${i + 1} at 18:00`]);
        return true;
      },
      { timeoutMs: 20_000, tolerateThrows: true },
    );
    expect(runs.map((r) => r.party).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(runs.every((r) => r.attempt === 1)).toBe(true);
    expect(new Set(runs.map((r) => r.member))).toEqual(new Set(['a', 'b'])); // shared by partition
  });

  it('runs a task again in the process that takes over when its process stops mid-task, with the same key', async () => {
    hold.add(42);
    runs.length = 0;
    const person = await ask(42);
    await eventually('the task to start', () => runs.length === 1, 20_000);
    const first = runs[0]!;
    await stopProcess(processes.find((p) => p.name === first.member)!);
    await eventually(
      'the dialog to go on once, from the other process',
      async () => {
        expect(await botTexts(person)).toEqual(['How many?', 'Looking…', 'Free for 42 at 18:00']);
        return true;
      },
      { timeoutMs: 20_000, tolerateThrows: true },
    );
    expect(runs).toEqual([first, { ...first, member: processes[0]!.name, attempt: 2 }]);
  });
});

describe.skipIf(!up)('PostgreSQL task claims', () => {
  it('takes over a task left running by a process that is gone, never one a live process runs', async () => {
    const db = await migratedDatabase();
    const pg = await openPostgres({ url: db.url });
    try {
      const store = new PgTasks(pg.pool, 'me');
      const leases = new PgLeases(pg.pool);
      await pg.pool.query(
        'INSERT INTO tasks (partition, conversation_key, revision, step_instance, name, ref, input, scope, policy, ' +
          'idempotency_key, status, attempts, claimed_by, run_after, created_at) VALUES ' +
          "(3, 'k:1', 1, 1, 't', 'r', '{}', '{}', '{}', 'i1', 'running', 1, 'live', 0, 0), " +
          "(3, 'k:2', 1, 1, 't', 'r', '{}', '{}', '{}', 'i2', 'running', 1, 'dead', 0, 0), " +
          "(4, 'k:3', 1, 1, 't', 'r', '{}', '{}', '{}', 'i3', 'pending', 0, NULL, 0, 0)",
      );
      await leases.heartbeat('live', 60_000, {});
      await leases.heartbeat('me', 60_000, {});
      expect(await store.recover([3, 4], [])).toBe(1); // the dead member's; the live one keeps its task
      expect(await store.claimDue([3, 4], 10, 10)).toEqual([]); // holds no lease yet
      await leases.acquire('me', ['partition:3'], 60_000);
      const claimed = await store.claimDue([3, 4], 10, 10);
      expect(claimed.map((t) => [t.idempotencyKey, t.attempts])).toEqual([['i2', 2]]);
    } finally {
      await pg.close();
      await db.drop();
    }
  });
});
