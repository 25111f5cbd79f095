/**
 * A person who leaves a handoff with their request open (docs/handoff.md), over SQLite and PostgreSQL:
 * whichever way they leave (a command's goto, Start pressed again, another flow taking over, stopping the
 * bot, removing the dialog), the operators' chat is told once, the queue no longer counts them, and a
 * later Take or reply is answered that the person left: nothing reaches the person.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { type Conformance, openConformance, type StoreKind } from '../support/engine-conformance.ts';
import { postgresAvailable } from '../support/postgres.ts';
import { botStarted, botStopped, textMessage } from './fixtures.ts';
import { OPS, opPress, opReply, SUPPORT } from './handoff-fixtures.ts';

const up = await postgresAvailable();
const kinds = (['sqlite', 'postgres'] as StoreKind[]).filter((k) => k === 'sqlite' || up);
let h: Conformance | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const OTHER = `flow: recall
start: notice
triggers: [{ event: product_recall }]
events: { product_recall: { while_elsewhere: interrupt } }
steps:
  notice: { type: end, say: A product you bought is recalled. }
`;

function flows() {
  const support = SUPPORT.replace(/, hours: \{[^}]*\}/, '').replace(
    'steps:\n',
    'commands: { cancel: { goto: gone } }\nsteps:\n',
  );
  const compiled = compileSources(
    [
      { file: 'support.flow.yaml', source: support },
      { file: 'recall.flow.yaml', source: OTHER },
    ],
    defineRegistry({}),
    new Map(),
  );
  expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return compiled.flows;
}

const dialogRemoved = (user: number, at: number) => ({
  ...botStopped(user, at),
  update_type: 'dialog_removed',
});

/** Everything the bot said or answered in the operators' chat, as planned. */
async function toOps(c: Conformance) {
  return (await c.outbox()).filter((r) => r.args.chat_id === OPS || r.op === 'answerCallback');
}
const left = async (c: Conformance) =>
  (await toOps(c)).map((r) => String(r.args.text ?? '')).filter((t) => t.startsWith('🚪'));
type Keyboard = { type: string; payload: { buttons: { text: string; payload: string }[][] } };
const buttonOf = (row: { args: Record<string, unknown> }) =>
  (row.args.attachments as Keyboard[]).find((a) => a.type === 'inline_keyboard')!.payload.buttons[0]![0]!;
const takeOf = (row: { args: Record<string, unknown> }) => buttonOf(row).payload;
/** The bot's line in the operators' chat as a reply's `link.message` carries it. */
const asReplied = (row: { args: Record<string, unknown> }) => ({
  text: String(row.args.text),
  attachments: row.args.attachments,
});

/** The request's own edit: the same message (its id as the platform gave it), its Take button taken off. */
async function requestEdit(c: Conformance) {
  const mid = c.platform.chats.get(OPS)![0]!.mid;
  return (await c.outbox('u:1')).filter((r) => r.op === 'editMessage' && r.args.message_id === mid);
}

/** Person 1 asks, and waits; an operator takes it when `taken`. */
async function ask(c: Conformance, taken: boolean) {
  const at = () => c.clock.now();
  await c.deliver(botStarted(1, at()), textMessage(1, at(), 'Help'));
  await c.settle();
  const request = (await toOps(c))[0]!;
  expect(request.args.text).toContain('asks for an operator');
  if (taken) {
    await c.deliver(opPress(77, at(), takeOf(request), 'mid.req'));
    await c.settle();
    expect((await c.session('u:1'))!.snapshot).toContain('"handoff_operator":"Op77"');
  }
  expect(await waiting(c)).toBe(taken ? 0 : 1);
  return takeOf(request);
}
const waiting = (c: Conformance) => c.engine.store.waitingHandoffs([{ flowId: 'support', step: 'human' }]);

const WAYS: [string, (c: Conformance) => Promise<void>][] = [
  ['a command that goes elsewhere (/cancel)', (c) => c.deliver(textMessage(1, c.clock.now(), '/cancel'))],
  ['Start pressed again', (c) => c.deliver(botStarted(1, c.clock.now()))],
  [
    'another flow interrupting',
    async (c) => {
      await c.engine.events.send({ name: 'product_recall', to: { userId: 1 }, payload: {} });
    },
  ],
  ['stopping the bot', (c) => c.deliver(botStopped(1, c.clock.now()))],
  ['removing the dialog', (c) => c.deliver(dialogRemoved(1, c.clock.now()))],
];

describe.each(kinds)('a person leaving a handoff over %s', (kind) => {
  it.each(WAYS)('waiting, by %s: the operators are told once, the queue drops them', async (_, leave) => {
    h = await openConformance(kind, flows);
    const c = h;
    const take = await ask(c, false);
    c.clock.advance(1_000); // a second Start is another update
    await leave(c);
    await c.settle();
    const after = (await c.session('u:1'))!;
    expect(after.status !== 'active' || after.stateValue !== '"human"').toBe(true);
    expect(await left(c)).toEqual([expect.stringMatching(/left before an operator took it \(u:1\)$/)]);
    expect(await waiting(c)).toBe(0);

    // The request loses its Take: one edit, to a 🔒 that routes presses and replies like any line.
    const edits = await requestEdit(c);
    expect(edits).toHaveLength(1);
    expect(buttonOf(edits[0]!).text).toBe('🔒 Closed');
    expect(edits[0]!.args.text).toContain('asks for an operator');

    // A later Take is answered, and (a notification alone is not displayed) the same line follows in the
    // chat; nothing reaches the person, and nothing is said twice.
    const seen = c.platform.seen(1001).length;
    await c.deliver(opPress(88, c.clock.now(), take, 'mid.req'));
    await c.settle();
    const [answer, shown] = (await toOps(c)).slice(-2);
    expect(answer!.op).toBe('answerCallback');
    expect(answer!.args.notification).toMatch(/left the conversation: nothing was sent to them$/);
    expect(shown).toMatchObject({
      op: 'sendMessage',
      args: { chat_id: OPS, text: answer!.args.notification },
    });
    expect(c.platform.seen(1001)).toHaveLength(seen);
    expect(await left(c)).toHaveLength(1);

    // A reply to the "left" line, to that answer or to the edited request is answered too.
    const leftLine = (await toOps(c)).find((r) => String(r.args.text).startsWith('🚪'))!;
    const before = (await toOps(c)).length;
    for (const line of [leftLine, shown!, edits[0]!]) {
      await c.deliver(opReply(77, c.clock.now(), asReplied(line), { text: 'Still there?' }));
      await c.settle();
    }
    const answers = (await toOps(c)).slice(before);
    // (Start and another flow leave no name behind: the conversation stands for the person.)
    expect(answers.map((r) => r.args.text)).toEqual(
      Array(3).fill(expect.stringMatching(/^(user 1|u:1) left the conversation: nothing was sent to them$/)),
    );
    expect(c.platform.seen(1001)).toHaveLength(seen);
  });

  it.each(WAYS)('taken, by %s: the operator is told, a later reply answered', async (_, leave) => {
    h = await openConformance(kind, flows);
    const c = h;
    await ask(c, true);
    c.clock.advance(1_000); // a second Start is another update
    await leave(c);
    await c.settle();
    expect(await left(c)).toEqual([expect.stringMatching(/left the conversation \(u:1\)$/)]);

    const seen = c.platform.seen(1001).length;
    const request = (await toOps(c))[0]!;
    await c.deliver(
      opReply(
        77,
        c.clock.now(),
        { text: 'x', attachments: request.args.attachments },
        { text: 'Still there?' },
      ),
    );
    await c.settle();
    const answer = (await toOps(c)).at(-1)!;
    expect(answer).toMatchObject({ op: 'sendMessage', args: { chat_id: OPS } });
    expect(answer.args.text).toMatch(/left the conversation: nothing was sent to them$/);
    expect(c.platform.seen(1001)).toHaveLength(seen);
    expect((await c.outbox('u:1')).filter((r) => r.args.text === 'Still there?')).toEqual([]);

    // A reply to the "🚪 … left the conversation" line itself is answered the same way.
    const leftLine = (await toOps(c)).find((r) => String(r.args.text).startsWith('🚪'))!;
    const told = (await toOps(c)).length;
    await c.deliver(opReply(77, c.clock.now(), asReplied(leftLine), { text: 'Hello?' }));
    await c.settle();
    const again = (await toOps(c)).slice(told);
    expect(again.map((r) => r.args.text)).toEqual([
      expect.stringMatching(/left the conversation: nothing was sent to them$/),
    ]);
    expect(c.platform.seen(1001)).toHaveLength(seen);
  });

  it('answers nothing of leaving while the person is there (an empty reply, a bad /set)', async () => {
    h = await openConformance(kind, flows);
    const c = h;
    await ask(c, true);
    const request = (await toOps(c))[0]!;
    const replied = { text: 'x', attachments: request.args.attachments };
    await c.deliver(
      opReply(77, c.clock.now(), replied, { attachments: [{ type: 'contact', payload: {} }] }),
      opReply(77, c.clock.now(), replied, { text: '/set 1bad value' }),
    );
    await c.settle();
    const answers = (await toOps(c)).map((r) => String(r.args.text ?? r.args.notification ?? ''));
    expect(answers.filter((t) => t.includes('nothing was sent'))).toEqual([]);
    expect(await c.session('u:1')).toMatchObject({ status: 'active', stateValue: '"human"' });
  });

  it('says nothing of leaving when the step closes the request itself (/done, timeout); a late Take is told it is closed', async () => {
    h = await openConformance(kind, flows);
    const c = h;
    await ask(c, true);
    const request = (await toOps(c))[0]!;
    await c.deliver(
      opReply(77, c.clock.now(), { text: 'x', attachments: request.args.attachments }, { text: '/done' }),
    );
    await c.settle();
    expect(await c.session('u:1')).toMatchObject({ status: 'done', stateValue: '"after"' });
    await c.deliver(botStarted(2, c.clock.now()), textMessage(2, c.clock.now(), 'Help'));
    await c.settle();
    await c.advance(11 * 60_000);
    expect(await c.session('u:2')).toMatchObject({ status: 'done', stateValue: '"gone"' });
    expect(await left(c)).toEqual([]);

    // Both requests lost their buttons but a 🔒; the lines that closed them carry one too.
    for (const key of ['u:1', 'u:2']) {
      const rows = await c.outbox(key);
      const edit = rows.filter((r) => r.op === 'editMessage').at(-1)!;
      expect(buttonOf(edit).text).toBe('🔒 Closed');
    }
    const back = (await c.outbox('u:1')).find((r) => String(r.args.text).includes('back to the bot'))!;
    const gone = (await c.outbox('u:2')).find((r) => String(r.args.text).includes('withdrawn'))!;
    expect([buttonOf(back).text, buttonOf(gone).text]).toEqual(['🔒 Closed', '🔒 Closed']);

    // A Take on the withdrawn request is answered: closed, not left; so is a reply to either closing line.
    const second = (await c.outbox('u:2')).find((r) => r.args.chat_id === OPS)!;
    await c.deliver(opPress(88, c.clock.now(), takeOf(second), 'mid.req2'));
    await c.settle();
    const [answer, shown] = (await toOps(c)).slice(-2);
    expect(answer!.args.notification).toBe('The request of user 2 is closed: nothing was sent to them');
    expect(shown!.args.text).toBe(answer!.args.notification);
    await c.deliver(
      opReply(77, c.clock.now(), asReplied(back), { text: 'Anything else?' }),
      opReply(77, c.clock.now(), asReplied(gone), { text: '/done' }),
    );
    await c.settle();
    expect((await toOps(c)).slice(-2).map((r) => r.args.text)).toEqual([
      'The request of user 1 is closed: nothing was sent to them',
      'The request of user 2 is closed: nothing was sent to them',
    ]);
  });

  it("keeps an earlier request's buttons off a new one: its Take, reply and /done are told it is closed", async () => {
    h = await openConformance(kind, flows);
    const c = h;
    const oldTake = await ask(c, true);
    const request = (await toOps(c))[0]!;
    const old = { text: 'x', attachments: request.args.attachments };
    await c.deliver(opReply(77, c.clock.now(), old, { text: '/done' }));
    await c.settle();
    expect(await c.session('u:1')).toMatchObject({ status: 'done', stateValue: '"after"' });
    // The person asks again (a later Start: the first one's is a duplicate): a new request, nobody's yet.
    await c.advance(60_000);
    await c.deliver(botStarted(1, c.clock.now()), textMessage(1, c.clock.now(), 'Help again'));
    await c.settle();
    expect(await waiting(c)).toBe(1);
    const before = (await c.outbox('u:1')).length;
    await c.deliver(
      opPress(88, c.clock.now(), oldTake, 'mid.req'),
      opReply(77, c.clock.now(), old, { text: 'an answer to the old request' }),
      opReply(77, c.clock.now(), old, { text: '/done' }),
    );
    await c.settle();
    const closed = 'The request of user 1 is closed: nothing was sent to them';
    const answers = (await c.outbox('u:1')).slice(before);
    // The press's notification is followed by the same line in the chat.
    expect(answers.map((r) => r.args.notification ?? r.args.text)).toEqual([closed, closed, closed, closed]);
    expect(answers.every((r) => r.args.chat_id === OPS || r.op === 'answerCallback')).toBe(true);
    expect(await c.session('u:1')).toMatchObject({ status: 'active', stateValue: '"human"' });
    expect(await waiting(c)).toBe(1);
    // The new request's own Take works.
    const fresh = (await toOps(c))
      .filter((r) => String(r.args.text).includes('asks for an operator'))
      .at(-1)!;
    await c.deliver(opPress(88, c.clock.now(), takeOf(fresh), 'mid.req.new'));
    await c.settle();
    expect((await toOps(c)).at(-1)).toMatchObject({
      args: { notification: 'You took it: reply to its messages' },
    });
    expect(await waiting(c)).toBe(0);
  });
});
