/**
 * The person is told their place in the queue (docs/handoff.md), over SQLite and PostgreSQL: the store
 * counts the requests nobody took yet from the sessions themselves; a request taken leaves the queue; two
 * requests planned in one batch get consecutive places.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { WAITING_INDEXED } from '../../src/store/handoff-queue.ts';
import { type Conformance, openConformance, type StoreKind } from '../support/engine-conformance.ts';
import { postgresAvailable } from '../support/postgres.ts';
import { botStarted, textMessage } from './fixtures.ts';
import { OPS, opPress, SUPPORT } from './handoff-fixtures.ts';

const up = await postgresAvailable();
const kinds = (['sqlite', 'postgres'] as StoreKind[]).filter((k) => k === 'sqlite' || up);
let h: Conformance | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const SAY = 'You are number {{handoff_place}} in the queue (usually within {{handoff_wait}}).';

function flows() {
  const source = SUPPORT.replace(/, hours: \{[^}]*\}/, '').replace(
    '    return_to: after\n',
    `    return_to: after\n    say: "${SAY}"\n`,
  );
  const compiled = compileSources([{ file: 'support.flow.yaml', source }], defineRegistry({}), new Map());
  expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return compiled.flows;
}

const told = (c: Conformance, user: number) =>
  c.platform.seen(1000 + user).filter((t) => t.startsWith('You are number'));

describe.each(kinds)('the place in the handoff queue over %s', (kind) => {
  it('counts the untaken requests of the operators chat, the person included', async () => {
    h = await openConformance(kind, flows);
    const c = h;
    const at = () => c.clock.now();
    const ask = async (user: number) => {
      await c.deliver(botStarted(user, at()), textMessage(user, at(), `Help ${user}`));
      await c.settle();
    };
    const waiting = () => c.engine.store.waitingHandoffs([{ flowId: 'support', step: 'human' }]);
    expect(await waiting()).toBe(0);

    await ask(1);
    expect(told(c, 1)).toEqual(['You are number 1 in the queue (usually within 10m).']);
    await ask(2);
    expect(told(c, 2)).toEqual(['You are number 2 in the queue (usually within 10m).']);
    expect(await waiting()).toBe(2);

    // An operator takes the first request: it leaves the queue.
    const request = (await c.outbox('u:1')).find((r) => r.args.chat_id === OPS)!;
    const payload = (request.args.attachments as { payload: { buttons: { payload: string }[][] } }[])[0]!
      .payload.buttons[0]![0]!.payload;
    await c.deliver(opPress(77, at(), payload, 'mid.req'));
    await c.settle();
    expect(await waiting()).toBe(1);
    await ask(3);
    expect(told(c, 3)).toEqual(['You are number 2 in the queue (usually within 10m).']);

    // Two requests in one batch: each counts the one planned before it.
    await c.deliver(
      botStarted(4, at()),
      botStarted(5, at()),
      textMessage(4, at(), 'Help 4'),
      textMessage(5, at(), 'Help 5'),
    );
    await c.settle();
    expect([...told(c, 4), ...told(c, 5)]).toEqual([
      'You are number 3 in the queue (usually within 10m).',
      'You are number 4 in the queue (usually within 10m).',
    ]);
    expect(await waiting()).toBe(4);
  });

  it('reads the queue through its partial index, which holds the waiting sessions only', async () => {
    h = await openConformance(kind, flows);
    const sql = `SELECT count(*) AS n FROM sessions WHERE ${WAITING_INDEXED} AND flow_id = ? AND state_value = ?`;
    if (kind === 'sqlite') {
      const plan = await h.rows<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, 'support', '"human"');
      expect(plan.map((r) => r.detail).join('\n')).toContain('USING INDEX sessions_handoff_waiting');
    } else {
      // PostgreSQL picks its plan by the table's size: the index is there, with the query's predicate.
      const [index] = await h.rows<{ indexdef: string }>(
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'sessions_handoff_waiting'",
      );
      expect(index?.indexdef).toContain(`'%"handoff":{"open":true}%'`);
    }
  });
});
