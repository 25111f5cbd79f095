/**
 * What an outside event leaves behind when the flow it waited in ends early (docs/events.md), over SQLite
 * and PostgreSQL: Start pressed again drops the events queued for the run the person left
 * (`while_elsewhere: queue`), and an interrupting event (`while_elsewhere: interrupt`) drops the old flow's
 * unsent messages in its own transaction, but not its callback answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ButtonSigner } from '../../src/engine/step/buttons.ts';
import { eventEntry } from '../../src/inbox/event-entry.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { type Conformance, openConformance, type StoreKind } from '../support/engine-conformance.ts';
import { postgresAvailable } from '../support/postgres.ts';
import { eventFlows } from './conformance-event-flows.ts';
import { botStarted, press, textMessage } from './fixtures.ts';

const up = await postgresAvailable();
const kinds = (['sqlite', 'postgres'] as StoreKind[]).filter((k) => k === 'sqlite' || up);

let h: Conformance | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const MENU = `flow: menu
start: pick
triggers: [{ bot_started: true }]
steps:
  pick:
    type: menu
    say: Pick one
    keyboard: [[{ id: a, text: A, goto: ask }]]
  ask:
    type: input
    say: Your name?
    input: text
    retries: { max: 3, exhausted: { goto: bye } }
    save: name
    next: bye
  bye: { type: end, say: Bye. }
`;

const menuFlows = () => eventFlows({ file: 'menu.flow.yaml', source: MENU });

describe.each(kinds)('outside events when a flow ends early, over %s', (kind) => {
  it('Start pressed again drops the events queued for the run the person left', async () => {
    h = await openConformance(kind, eventFlows);
    const c = h;
    await c.deliver(botStarted(4, c.clock.now()));
    await c.settle();
    await c.engine.events.send({
      name: 'order_shipped',
      to: { userId: 4 },
      payload: { id: 3, carrier: 'UPS' },
    });
    await c.settle();
    c.clock.advance(1_000); // a second Start is another update
    await c.deliver(botStarted(4, c.clock.now()));
    await c.settle();
    await c.deliver(textMessage(4, c.clock.now(), 'Cy'));
    await c.settle();
    expect(c.platform.seen(1004)).toEqual([
      'Your name?',
      'Your name?',
      'Cy, we will tell you when it ships.',
    ]);
    expect(await c.session('u:4')).toMatchObject({ stateValue: '"wait_shipped"', status: 'active' });
  });

  it("an interrupting event drops the old flow's unsent messages, not its callback answers", async () => {
    h = await openConformance(kind, menuFlows);
    const c = h;
    // One batch: the menu is drawn, pressed (answered, the next question asked), and the event interrupts
    // before the dispatcher sent any of it.
    const signed = new ButtonSigner('conformance-secret-for-buttons').sign('u:8', 1, 'a');
    const at = c.clock.now();
    const event = { name: 'table_confirmed', to: { userId: 8 }, payload: { time: '20:30' } };
    await c.engine.store.append([
      { ...updateEntry(JSON.stringify(botStarted(8, at))), receivedAt: at },
      { ...updateEntry(JSON.stringify(press(8, at, signed))), receivedAt: at },
      eventEntry(event, 'user-in-chat', at),
    ]);
    c.engine.notify();
    await c.settle();
    expect(await c.session('u:8')).toMatchObject({ flowId: 'table', status: 'done' });
    const rows = (await c.outbox('u:8')).map((r) => [r.op, r.args.text ?? null, r.status]);
    expect(rows).toEqual([
      ['sendMessage', 'Pick one', 'dropped'],
      ['answerCallback', null, 'done'],
      ['sendMessage', 'Your name?', 'dropped'],
      ['sendMessage', 'Your table at 20:30 is confirmed.', 'done'],
    ]);
    expect(c.platform.seen(1008)).toEqual(['Your table at 20:30 is confirmed.']);
  });
});
