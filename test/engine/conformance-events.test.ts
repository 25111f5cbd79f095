/**
 * External events in the engine conformance suite (issue 29), over SQLite and PostgreSQL: an event resumes
 * a person waiting for it, starts a flow for a person without a session, is applied once however often it
 * is sent with one key, is refused before anything is stored when its payload or name is wrong, and follows
 * the policy for a person elsewhere (queue, ignore, interrupt); a waiting step times out on the virtual clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EventInvalidError } from '../../src/inbox/event-entry.ts';
import { type Conformance, openConformance, type StoreKind } from '../support/engine-conformance.ts';
import { postgresAvailable } from '../support/postgres.ts';
import { eventFlows } from './conformance-event-flows.ts';
import { botStarted, textMessage } from './fixtures.ts';

const up = await postgresAvailable();
const kinds = (['sqlite', 'postgres'] as StoreKind[]).filter((k) => k === 'sqlite' || up);
const DAY = 24 * 3_600_000;

let h: Conformance | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function open(kind: StoreKind): Promise<Conformance> {
  h = await openConformance(kind, eventFlows);
  return h;
}

async function send(c: Conformance, ...updates: object[]): Promise<void> {
  await c.deliver(...updates);
  await c.settle();
}

/** The events of the conversation's inbox: status and reason, in order. */
async function eventRows(c: Conformance, key: string) {
  return c.rows<{ status: string; error: string | null }>(
    "SELECT status, error FROM inbox WHERE kind = 'event' AND conversation_key = ? ORDER BY id",
    key,
  );
}

describe.each(kinds)('external events over %s', (kind) => {
  it('resume a person waiting for them, with the payload saved', async () => {
    const c = await open(kind);
    await send(c, botStarted(1, c.clock.now()), textMessage(1, c.clock.now(), 'Ann'));
    expect(await c.session('u:1')).toMatchObject({ stateValue: '"wait_shipped"' });
    const receipt = await c.engine.events.send({
      name: 'order_shipped',
      to: { userId: 1 },
      payload: { id: 7, carrier: 'DHL' },
    });
    expect(receipt).toEqual({ accepted: true, id: expect.any(Number), conversation: 'u:1' });
    await c.settle();
    expect(c.platform.seen(1001)).toEqual([
      'Your name?',
      'Ann, we will tell you when it ships.',
      'Shipped by DHL',
      'Order 7 is on its way.',
    ]);
    expect(await c.session('u:1')).toMatchObject({ status: 'done', stateValue: '"shipped"' });
  });

  it('start the flow they trigger for a person without a session, sent to the person by id', async () => {
    const c = await open(kind);
    await c.engine.events.send({ name: 'table_confirmed', to: { userId: 5 }, payload: { time: '19:00' } });
    await c.settle();
    expect(await c.session('u:5')).toMatchObject({ flowId: 'table', status: 'done', userId: 5 });
    const sent = (await c.outbox('u:5')).filter((r) => r.op === 'sendMessage');
    expect(sent.map((r) => [r.args.text, r.args.user_id])).toEqual([
      ['Your table at 19:00 is confirmed.', 5],
    ]);
  });

  it('with one key are applied once, however often they are sent', async () => {
    const c = await open(kind);
    await send(c, botStarted(2, c.clock.now()), textMessage(2, c.clock.now(), 'Bo'));
    const event = { name: 'order_shipped', to: { userId: 2 }, payload: { id: 9 }, key: 'ship-9' };
    const first = await c.engine.events.send(event);
    const again = await c.engine.events.send(event);
    await c.settle();
    const late = await c.engine.events.send(event);
    expect(first.accepted).toBe(true);
    expect(again).toEqual({ accepted: false, id: null, conversation: 'u:2' });
    expect(late.accepted).toBe(false);
    await c.settle();
    expect(c.platform.seen(1002).filter((t) => t.startsWith('Order'))).toEqual(['Order 9 is on its way.']);
    expect(await eventRows(c, 'u:2')).toEqual([{ status: 'done', error: null }]);
  });

  it('are refused before anything is stored when the payload or the name is wrong', async () => {
    const c = await open(kind);
    const bad = c.engine.events.send({ name: 'order_shipped', to: { userId: 3 }, payload: { id: 'x' } });
    await expect(bad).rejects.toBeInstanceOf(EventInvalidError);
    await expect(bad).rejects.toMatchObject({
      code: 'BOTFLOW_EVENT_INVALID',
      problems: [expect.stringMatching(/^payload\.id: /)],
    });
    await expect(
      c.engine.events.send({ name: 'order_shiped', to: { userId: 3 }, payload: { id: 1 } }),
    ).rejects.toMatchObject({ problems: [expect.stringContaining('did you mean "order_shipped"?')] });
    // The registry's zod schema checks an event no flow declares a schema for.
    expect(c.engine.events.check('refund_issued', { amount: -1 })).toEqual([
      expect.stringMatching(/^payload\.amount: /),
    ]);
    expect(c.engine.events.check('refund_issued', { amount: 5 })).toEqual([]);
    expect(await c.rows("SELECT id FROM inbox WHERE kind = 'event'")).toEqual([]);
  });

  it('wait in the flow while the person is elsewhere (queue) and resume on the step that takes them', async () => {
    const c = await open(kind);
    await send(c, botStarted(4, c.clock.now()));
    await c.engine.events.send({
      name: 'order_shipped',
      to: { userId: 4 },
      payload: { id: 3, carrier: 'UPS' },
    });
    await c.settle();
    expect(await c.session('u:4')).toMatchObject({ stateValue: '"ask"', status: 'active' });
    expect((await eventRows(c, 'u:4'))[0]).toEqual({ status: 'done', error: null });
    await send(c, textMessage(4, c.clock.now(), 'Cy'));
    expect(c.platform.seen(1004)).toEqual([
      'Your name?',
      'Cy, we will tell you when it ships.',
      'Shipped by UPS',
      'Order 3 is on its way.',
    ]);
  });

  it('are ignored with the reason when the step does not take them and the policy is ignore', async () => {
    const c = await open(kind);
    await send(c, botStarted(6, c.clock.now()));
    await c.engine.events.send({ name: 'newsletter', to: { userId: 6 } });
    await c.settle();
    expect(await eventRows(c, 'u:6')).toEqual([
      {
        status: 'ignored',
        error: 'event newsletter: step "ask" of flow "shop" does not take it (while_elsewhere: ignore)',
      },
    ]);
    expect(await c.session('u:6')).toMatchObject({ stateValue: '"ask"', status: 'active' });
  });

  it('interrupt the running flow when the flow they start says so', async () => {
    const c = await open(kind);
    await send(c, botStarted(8, c.clock.now()));
    await c.engine.events.send({ name: 'table_confirmed', to: { userId: 8 }, payload: { time: '20:30' } });
    await c.settle();
    expect(await c.session('u:8')).toMatchObject({ flowId: 'table', status: 'done' });
    expect(c.platform.seen(1008)).toEqual(['Your name?', 'Your table at 20:30 is confirmed.']);
  });

  it('time out on a waiting step on the virtual clock', async () => {
    const c = await open(kind);
    await send(c, botStarted(9, c.clock.now()), textMessage(9, c.clock.now(), 'Di'));
    await c.advance(7 * DAY - 1);
    expect(c.platform.seen(1009)).toHaveLength(2);
    await c.advance(1);
    expect(c.platform.seen(1009).slice(2)).toEqual(['Still nothing.', 'Late.']);
    expect(await c.session('u:9')).toMatchObject({ status: 'done', stateValue: '"late"' });
  });
});
