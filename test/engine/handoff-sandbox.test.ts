/**
 * A whole handoff over the real sandbox (HTTP on 127.0.0.1) and the engine on SQLite: the operators' chat is
 * a group chat with the bot as a member; two operators press Take on the request (one wins, the other is
 * told), the person's photo is relayed there, an operator's reply with a photo (a real reply, whose linked
 * message carries the button botflow signed) comes back to the person, and `/set` + `/done` return them to
 * the flow.
 */
import { afterEach, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { Harness } from '../../src/testing/harness.ts';
import { OPS, SUPPORT } from './handoff-fixtures.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The support flow in the sandbox (with `/cancel` when `cancel`), and Ann, who asked for an operator. */
async function annAsks(cancel = false) {
  const always = SUPPORT.replace(/, hours: \{[^}]*\}/, '');
  const source = cancel
    ? always.replace('steps:\n', 'commands: { cancel: { goto: gone } }\nsteps:\n')
    : always;
  const { flows } = compileSources([{ file: 'support.flow.yaml', source }], defineRegistry({}), new Map());
  h = await Harness.start({ flows });
  const ann = await h.person('Ann');
  await h.act(ann, { kind: 'start' });
  await h.act(ann, { kind: 'say', text: 'My parcel is lost' });
  return { h, control: h.sandbox.control, ann };
}

it('hands a person to an operator in the sandbox and back', async () => {
  const { h, control, ann } = await annAsks();
  const { chat } = await control.chat(OPS);
  const owner = Number((chat as { owner_id?: number }).owner_id);
  const olga = (await control.createUser({ first_name: 'Olga' })).user_id;
  const igor = (await control.createUser({ first_name: 'Igor' })).user_id;
  await control.addUser(owner, OPS, olga);
  await control.addUser(owner, OPS, igor);
  const opsView = () => control.view(olga, OPS);
  const request = (await opsView()).messages.find((m) => m.text?.includes('asks for an operator'))!;
  expect(request.text).toContain('Reason: My parcel is lost');

  await control.pressButton(olga, request.message_id, { text: 'Take' });
  await control.pressButton(igor, request.message_id, { text: 'Take' });
  await h.settle();
  const told = async (user: number) =>
    (await control.notifications(user)).notifications.map((n) => `${n.text}${n.shown ? '' : ' (not shown)'}`);
  // The winner's answer carries the request's edit, so the platform shows its notification; the other's
  // notification alone would not be shown: the same line follows in the chat.
  expect(await told(olga)).toEqual(['You took it: reply to its messages']);
  expect(await told(igor)).toEqual(['Already taken by Olga (not shown)']);
  const edited = (await opsView()).messages.find((m) => m.message_id === request.message_id)!;
  expect(edited.text).toContain('✅ Taken by Olga');
  expect(JSON.stringify(edited.keyboard)).toContain('"Done"');
  expect((await opsView()).messages.at(-1)).toMatchObject({ from: 'bot', text: 'Already taken by Olga' });
  expect((await control.view(ann.userId)).messages.map((m) => m.text)).toContain(
    'Olga joined the conversation.',
  );

  await h.act(ann, { kind: 'file', type: 'image', name: 'label.png' });
  await h.settle();
  const relayed = (await opsView()).messages.at(-1)!;
  expect(relayed.from).toBe('bot');
  expect(relayed.attachments.map((a) => (a as { type: string }).type)).toEqual(['image']);

  await control.sendMessage(olga, OPS, {
    text: 'Found it',
    files: [{ type: 'image', filename: 'found.png', text: 'png' }],
    reply_to: relayed.message_id,
  });
  await h.settle();
  const seen = (await control.view(ann.userId)).messages.at(-1)!;
  expect(seen.text).toBe('Found it');
  expect(seen.attachments.map((a) => (a as { type: string }).type)).toEqual(['image']);

  await control.sendMessage(olga, OPS, { text: '/set ticket T-9', reply_to: relayed.message_id });
  await control.sendMessage(olga, OPS, { text: '/done', reply_to: relayed.message_id });
  await h.settle();
  expect((await control.view(ann.userId)).messages.at(-1)!.text).toBe('Back with the bot. Ticket T-9.');
});

it('shows the operator what happened after the person left: a Done press, a reply to the "left" line', async () => {
  const { h, control, ann } = await annAsks(true);
  const { chat } = await control.chat(OPS);
  const olga = (await control.createUser({ first_name: 'Olga' })).user_id;
  await control.addUser(Number((chat as { owner_id?: number }).owner_id), OPS, olga);
  const opsView = () => control.view(olga, OPS);
  const request = (await opsView()).messages.find((m) => m.text?.includes('asks for an operator'))!;
  await control.pressButton(olga, request.message_id, { text: 'Take' });
  await h.act(ann, { kind: 'say', text: 'Hello?' });
  await h.settle();
  const relayed = (await opsView()).messages.at(-1)!;
  expect(relayed.text).toContain('Hello?');

  await h.act(ann, { kind: 'say', text: '/cancel' });
  await h.settle();
  const leftLine = (await opsView()).messages.at(-1)!;
  expect(leftLine.text).toMatch(/^🚪 Ann left the conversation/);
  // The request keeps no Take and no Done: a 🔒 that only answers.
  const closed = (await opsView()).messages.find((m) => m.message_id === request.message_id)!;
  expect(JSON.stringify(closed.keyboard)).toContain('🔒 Closed');
  expect(JSON.stringify(closed.keyboard)).not.toMatch(/"(Take|Done)"/);

  await control.pressButton(olga, relayed.message_id, { text: 'Done' });
  await h.settle();
  const gone = 'Ann left the conversation: nothing was sent to them';
  expect((await opsView()).messages.at(-1)).toMatchObject({ from: 'bot', text: gone });

  await control.sendMessage(olga, OPS, { text: 'Are you there?', reply_to: leftLine.message_id });
  await h.settle();
  expect((await opsView()).messages.at(-1)).toMatchObject({ from: 'bot', text: gone });
  expect((await control.view(ann.userId)).messages.map((m) => m.text)).not.toContain('Are you there?');
});
