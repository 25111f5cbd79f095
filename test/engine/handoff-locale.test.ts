/**
 * The operators' side of a handoff speaks the flow's default locale, the person's side the person's
 * (docs/handoff.md): in a Russian-first flow, an English-speaking person gets the built-in English texts
 * while the operators' chat reads the request, its buttons and every answer to them in Russian.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { loadCatalog } from '../../src/flows/texts.ts';
import { type Conformance, openConformance } from '../support/engine-conformance.ts';
import { botStarted, textMessage } from './fixtures.ts';
import { OPS, opPress, opReply } from './handoff-fixtures.ts';

const DESK = `flow: desk
start: ask
i18n: { default_locale: ru, locales: [ru, en] }
triggers: [{ bot_started: true }]
handoff: { operators_chat: ${OPS} }
steps:
  ask:
    { type: input, say: ask, input: text, save: question, next: human, retries: { max: 3, exhausted: { goto: after } } }
  human: { type: handoff, reason: reason, return_to: after }
  after: { type: end, say: after }
`;
const catalog = (lang: string, text: string) => loadCatalog(lang, `${lang}.ftl`, text);

function flows() {
  const compiled = compileSources(
    [{ file: 'desk.flow.yaml', source: DESK }],
    defineRegistry({}),
    new Map([
      ['ru', catalog('ru', 'ask = Ваш вопрос?\nreason = { $question }\nafter = Снова с ботом.\n')],
      ['en', catalog('en', 'ask = Your question?\nreason = { $question }\nafter = Back with the bot.\n')],
    ]),
  );
  expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return compiled.flows;
}

let h: Conformance | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('handoff texts', () => {
  it("are the flow's default locale for the operators and the person's for the person", async () => {
    h = await openConformance('sqlite', flows);
    const c = h;
    const at = () => c.clock.now();
    await c.deliver(botStarted(1, at()), textMessage(1, at(), 'Где посылка?'));
    await c.settle();
    const request = (await c.outbox('u:1')).find((r) => r.args.chat_id === OPS)!;
    expect(request.args.text).toBe('🙋 user 1 просит оператора (u:1)\nПричина: Где посылка?');
    const take = request.args.attachments as {
      payload: { buttons: { text: string; payload: string }[][] };
    }[];
    expect(take[0]!.payload.buttons[0]![0]!.text).toBe('Взять');
    const signed = take[0]!.payload.buttons[0]![0]!.payload;
    expect(await c.texts('u:1')).toContain('An operator will answer you here soon (usually within 15m).');

    await c.deliver(opPress(77, at(), signed, 'mid.req'), opPress(88, at(), signed, 'mid.req'));
    await c.settle();
    const calls = await c.outbox('u:1');
    expect(calls.filter((r) => r.op === 'answerCallback').map((r) => r.args.notification)).toEqual([
      'Запрос ваш: отвечайте на его сообщения',
      'Уже взял(а) Op77',
    ]);
    // The request's edit travels in the winner's answer (so that its notification is displayed).
    const edited = calls.find((r) => r.op === 'answerCallback')!.args.message as Record<string, unknown>;
    expect(String(edited.text)).toMatch(/\n\n✅ Взял\(а\) Op77$/);
    expect(JSON.stringify(edited.attachments)).toContain('"text":"Готово"');
    expect(c.platform.seen(1001)).toContain('Op77 joined the conversation.');

    const replied = { text: String(request.args.text), attachments: request.args.attachments };
    await c.deliver(opReply(77, at(), replied, { text: '/done' }));
    await c.settle();
    const ops = (await c.outbox('u:1')).filter((r) => r.args.chat_id === OPS);
    expect(ops.at(-1)!.args.text).toBe('☑️ u:1: снова с ботом (Op77)');
    expect(JSON.stringify(ops.at(-1)!.args.attachments)).toContain('"text":"🔒 Закрыт"');
    expect(c.platform.seen(1001).at(-1)).toBe('Back with the bot.');
  });
});
