// Leaving the step that started a task cancels it on PostgreSQL too (the step's transaction writes the
// cancellation, botflow_cancel_tasks): /cancel while the task waits for its retry stops the retry, and the
// task's compensation (`on_cancel`) runs once with the same idempotency key.
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry, type TaskDefinition, TaskError } from '../../src/flows/registry.ts';
import { useClusterHarness } from '../support/cluster-harness.ts';
import { eventually } from '../support/eventually.ts';
import { postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();

const FLOW = `
flow: order
start: qty
triggers: [{ bot_started: true }]
commands:
  cancel: { say: Order cancelled., goto: cancelled }
steps:
  qty:
    type: input
    say: How many pizzas?
    input: integer
    retries: { max: 3, exhausted: { goto: cancelled } }
    save: qty
    next: place
  place:
    type: message
    say: Ordering…
    do:
      - task: place_order
        input: { qty: "{{qty}}" }
        save_as: order
        retry: { attempts: 3, backoff: 1500ms, on: [unavailable] }
        on_cancel: { task: cancel_order }
        on_error: { say: Sorry., goto: cancelled }
    next: placed
  placed: { type: end, say: "Ordered: {{order.id}}" }
  cancelled: { type: end, say: Bye. }
`;

describe.skipIf(!up)('leaving a task step on PostgreSQL', () => {
  const cluster = useClusterHarness();

  it('cancels the task waiting for its retry and runs its compensation once', async () => {
    const attempts: string[] = [];
    const bobAttempts: number[] = [];
    const compensations: { key: string; cancelled: unknown }[] = [];
    const tasks: Record<string, TaskDefinition> = {
      place_order: (input, ctx) => {
        // Bob's order goes through on its retry: the signal that a retry planned before his has come due.
        if ((input as { qty: number }).qty === 5) {
          bobAttempts.push(ctx.attempt);
          if (ctx.attempt > 1) return { id: 'B5' };
        } else attempts.push(ctx.idempotencyKey);
        throw new TaskError('unavailable', 'the kitchen is busy');
      },
      cancel_order: (_input, ctx) => {
        compensations.push({ key: ctx.idempotencyKey, cancelled: ctx.cancelled });
        return null;
      },
    };
    const compiled = compileSources(
      [{ file: 'order.flow.yaml', source: FLOW }],
      defineRegistry({ tasks }),
      new Map(),
    );
    expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
    await cluster.start('a', { flows: compiled.flows, tasks });
    const control = cluster.sandbox.control;
    const person = await control.createUser({ first_name: 'Ann' });
    await control.startBot(person.user_id);
    await eventually(
      'the question',
      async () => (await cluster.botTexts(person.user_id)).length === 1,
      20_000,
    );
    await control.sendMessage(person.user_id, 'dialog', { text: '2' });
    await eventually('the first attempt', () => attempts.length === 1, 20_000);
    // Bob orders after Ann's first attempt, so his retry comes due after the one Ann's /cancel withdraws.
    const bob = await control.createUser({ first_name: 'Bob' });
    await control.startBot(bob.user_id);
    await eventually(
      'Bob’s question',
      async () => (await cluster.botTexts(bob.user_id)).length === 1,
      20_000,
    );
    await control.sendMessage(bob.user_id, 'dialog', { text: '5' });
    await eventually('Bob’s first attempt', () => bobAttempts.length === 1, 20_000);
    await control.sendMessage(person.user_id, 'dialog', { text: '/cancel' });
    await eventually('the compensation', () => compensations.length === 1, 20_000);
    // Once Bob's retry has run, Ann's (due earlier) would have been claimed with it or before it.
    await eventually(
      'Bob’s order after its retry',
      async () => (await cluster.botTexts(bob.user_id)).includes('Ordered: B5'),
      20_000,
    );
    expect(bobAttempts).toEqual([1, 2]);
    expect(attempts).toHaveLength(1);
    expect(compensations).toEqual([
      { key: attempts[0], cancelled: { task: 'place_order', input: { qty: 2 }, attempts: 1 } },
    ]);
    expect(await cluster.botTexts(person.user_id)).toEqual([
      'How many pizzas?',
      'Ordering…',
      'Order cancelled.',
      'Bye.',
    ]);
    const { rows } = await cluster.processes[0]!.pg.pool.query(
      'SELECT name, status FROM tasks WHERE conversation_key <> $1 ORDER BY id',
      [`u:${bob.user_id}`],
    );
    expect(rows).toEqual([
      { name: 'place_order', status: 'cancelled' },
      { name: 'cancel_order', status: 'done' },
    ]);
  });
});
