/**
 * A person takes over (docs/handoff.md), over SQLite and PostgreSQL: the request reaches the operators'
 * chat with "Take", two operators race and one wins, the person's photo and the operator's photo are
 * relayed both ways, `/set` and `/done` return the person to the flow; a request nobody takes times out on
 * the virtual clock; out of hours the flow goes elsewhere.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Conformance, openConformance, type StoreKind } from '../support/engine-conformance.ts';
import { postgresAvailable } from '../support/postgres.ts';
import { botStarted, textMessage } from './fixtures.ts';
import { OPS, opPress, opReply, photo, supportFlows } from './handoff-fixtures.ts';

const up = await postgresAvailable();
const kinds = (['sqlite', 'postgres'] as StoreKind[]).filter((k) => k === 'sqlite' || up);
let h: Conformance | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The bot's sends to the operators' chat (planned), in order. */
async function toOps(c: Conformance) {
  return (await c.outbox('u:1')).filter((r) => r.args.chat_id === OPS);
}
const signed = (row: { args: Record<string, unknown> }) =>
  ((row.args.attachments as { type: string; payload: { buttons: { payload: string }[][] } }[]).find(
    (a) => a.type === 'inline_keyboard',
  )?.payload.buttons[0]?.[0]?.payload ?? '') as string;

describe.each(kinds)('handoff over %s', (kind) => {
  it('request, two operators race to take, photos both ways, /set and /done return to the flow', async () => {
    h = await openConformance(kind, supportFlows);
    const c = h;
    const at = () => c.clock.now();
    await c.deliver(botStarted(1, at()), textMessage(1, at(), 'My parcel is lost'));
    await c.settle();
    const [request] = await toOps(c);
    expect(request!.args.text).toContain('Reason: My parcel is lost');
    expect(signed(request!)).toMatch(/\.hf:take:u:1\./);
    expect(await c.texts('u:1')).toContain('An operator will answer you here soon (usually within 10m).');

    // Two operators press Take: one wins, the other is told.
    await c.deliver(
      opPress(77, at(), signed(request!), 'mid.req'),
      opPress(88, at(), signed(request!), 'mid.req'),
    );
    await c.settle();
    const answers = (await c.outbox())
      .filter((r) => r.op === 'answerCallback')
      .map((r) => r.args.notification);
    expect(answers).toEqual(['You took it: reply to its messages', 'Already taken by Op77']);
    expect((await c.session('u:1'))!.snapshot).toContain('"handoff_operator":"Op77"');
    expect(c.platform.seen(1001)).toContain('Op77 joined the conversation.');

    // The person's photo goes to the operators; the operator's reply with a photo comes back.
    const withPhoto = textMessage(1, at(), 'Here is the label');
    (withPhoto.message.body as Record<string, unknown>).attachments = [photo('tok-person')];
    await c.deliver(withPhoto);
    await c.settle();
    const relayed = (await toOps(c)).at(-1)!;
    expect(relayed.args.text).toContain('Here is the label');
    expect(relayed.args.attachments).toContainEqual({ type: 'image', payload: { token: 'tok-person' } });
    const repliedBody = { text: relayed.args.text, attachments: relayed.args.attachments };
    await c.deliver(opReply(77, at(), repliedBody, { text: 'Found it', attachments: [photo('tok-op')] }));
    await c.settle();
    const back = (await c.outbox('u:1')).filter((r) => r.op === 'sendMessage' && r.args.text === 'Found it');
    expect(back).toHaveLength(1);
    expect(back[0]!.args.attachments).toEqual([{ type: 'image', payload: { token: 'tok-op' } }]);

    // /set and /done: the flow continues at return_to with the variable.
    await c.deliver(opReply(77, at(), repliedBody, { text: '/set ticket T-42' }));
    const done = opReply(77, at(), repliedBody, { text: '/done' });
    await c.deliver(done);
    await c.settle();
    expect(await c.session('u:1')).toMatchObject({ status: 'done', stateValue: '"after"' });
    expect(c.platform.seen(1001).at(-1)).toBe('Back with the bot. Ticket T-42.');
    // Delivered again (the platform retried), nothing is stored or done twice: two takes, a message, /set, /done.
    await c.deliver(done);
    await c.settle();
    const events = await c.rows<{ n: number }>("SELECT COUNT(*) AS n FROM inbox WHERE kind = 'event'");
    expect(Number(events[0]!.n)).toBe(5);
  });

  it('times out when nobody takes it', async () => {
    h = await openConformance(kind, supportFlows);
    const c = h;
    await c.deliver(botStarted(1, c.clock.now()), textMessage(1, c.clock.now(), 'Help'));
    await c.settle();
    await c.advance(11 * 60_000);
    expect(await c.session('u:1')).toMatchObject({ status: 'done', stateValue: '"gone"' });
    expect(c.platform.seen(1001).slice(-2)).toEqual(['Nobody is free now, sorry.', 'Bye.']);
    expect((await toOps(c)).at(-1)!.args.text).toContain('nobody took it in time');
  });

  it('keeps a request made before closing time open after it', async () => {
    h = await openConformance(kind, supportFlows);
    const c = h;
    c.clock.advance(8 * 3_600_000 + 58 * 60_000); // 17:58 UTC on a Monday
    await c.deliver(botStarted(1, c.clock.now()), textMessage(1, c.clock.now(), 'Help'));
    await c.settle();
    await c.advance(5 * 60_000); // 18:03: closed now, but the request stands
    await c.deliver(textMessage(1, c.clock.now(), 'Still there?'));
    await c.settle();
    expect(await c.session('u:1')).toMatchObject({ status: 'active', stateValue: '"human"' });
    expect((await toOps(c)).at(-1)!.args.text).toContain('Still there?');
  });

  it('goes elsewhere out of hours', async () => {
    h = await openConformance(kind, supportFlows);
    const c = h;
    c.clock.advance(10 * 3_600_000); // 19:00 UTC on a Monday
    await c.deliver(botStarted(1, c.clock.now()), textMessage(1, c.clock.now(), 'Help'));
    await c.settle();
    expect(await c.session('u:1')).toMatchObject({ status: 'done', stateValue: '"closed"' });
    expect(c.platform.seen(1001).slice(-2)).toEqual(['We are closed.', 'Closed.']);
    expect(await toOps(c)).toEqual([]);
  });
});
