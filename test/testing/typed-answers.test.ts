/**
 * Typed answers through the harness (sandbox, SQLite, engine, virtual clock): a typed label, alias,
 * position or typo moves the dialog like a press; an answer that fits two options gets a clarifying question
 * whose buttons answer the step, and it is no wrong answer (the step allows just one); menus read typed
 * button labels; times in words are read in the person's time zone.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileFlow } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { loadCatalog } from '../../src/flows/texts.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';

const FLOW = `flow: pizza
start: size
i18n: { default_locale: en, locales: [en, ru] }
triggers: [{ command: pizza }]
steps:
  size:
    type: input
    set: { time_zone: Asia/Tokyo }
    say: ask-size
    input: choice
    options:
      - { id: small, text: size-small }
      - { id: medium, text: size-medium, aliases: { en: [regular], ru: [обычная] } }
      - { id: large, text: size-large }
    retries: { max: 1, exhausted: { say: gave-up, goto: bye } }
    save: size
    next: crust
  crust:
    type: input
    say: ask-crust
    input: choice
    options:
      - { id: thin, text: crust-thin }
      - { id: thick, text: crust-thick }
    retries: { max: 1, exhausted: { say: gave-up, goto: bye } }
    save: crust
    next: when
  when:
    type: input
    say: ask-when
    input: time
    retries: { max: 2, exhausted: { say: gave-up, goto: bye } }
    save: at
    next: confirm
  confirm:
    type: menu
    say: confirm
    keyboard:
      - - { id: order, text: order, aliases: { ru: [заказываю] }, goto: done }
        - { id: again, text: again, goto: size }
  done: { type: end, say: done }
  bye: { type: end }
`;
const EN = `ask-size = Which size?
size-small = Small
size-medium = Medium
size-large = Large
ask-crust = Which crust?
crust-thin = Thin crust
crust-thick = Thick crust
ask-when = When?
confirm = A { $size } pizza, { $crust }, at { $at }. Order?
order = Order
again = Start over
done = Ordered.
gave-up = Let us start over later.
`;
const RU = `ask-size = Какой размер?
size-small = Маленькая
size-medium = Средняя
size-large = Большая
ask-crust = Какое тесто?
crust-thin = Тонкое тесто
crust-thick = Толстое тесто
ask-when = Когда?
confirm = Пицца { $size }, { $crust }, в { $at }. Заказываем?
order = Заказать
again = Сначала
done = Заказано.
gave-up = Давайте позже.
`;

let flow: FlowDefinition;
beforeAll(() => {
  const catalogs = new Map([
    ['en', loadCatalog('en', 'locales/en.ftl', EN)],
    ['ru', loadCatalog('ru', 'locales/ru.ftl', RU)],
  ]);
  const compiled = compileFlow(FLOW, 'pizza.flow.yaml', undefined, catalogs);
  expect(compiled.problems.map(formatProblem)).toEqual([]);
  flow = compiled.flow!;
});

/** Runs every transcript of `yaml`; the first failure, else the last result. */
async function run(yaml: string) {
  const r = parseTranscripts(yaml, 'pizza.test.yaml');
  expect(r.problems.map(formatProblem)).toEqual([]);
  let last: Awaited<ReturnType<typeof runTranscript>> | undefined;
  for (const t of r.transcripts) {
    last = await runTranscript(t, { flows: [flow] });
    if (last.failure) return last;
  }
  return last!;
}

describe('typed answers through the harness', () => {
  it('English: a typo, a clarification round trip that costs no attempt, a time in the person’s zone, a typed menu button', async () => {
    const result = await run(`flow: pizza
name: typed
turns:
  - say: /pizza
    bot: { send: { text: Which size?, keyboard: [[Small], [Medium], [Large]] } }
  - say: medim
    bot: { send: Which crust? }
  # "crust" is a word of both labels: the step asks, and only one wrong answer is allowed here.
  - say: crust
    bot: { send: { text: "Did you mean: Thin crust, Thick crust?", keyboard: [[Thin crust], [Thick crust]] } }
  - press: Thick crust
    bot: [{ answer: silent }, { send: When? }]
  # 09:00 UTC on the virtual clock is 18:00 in Tokyo (the variable time_zone).
  - say: in 2 hours
    bot: { send: "A medium pizza, thick, at 20:00. Order?" }
  - say: ordr
    bot: { send: Ordered. }
`);
    expect(result.failure?.report).toBeUndefined();
  });

  it('Russian: position, alias, the words of a label, a time in words, a menu button by alias', async () => {
    const result = await run(`flow: pizza
name: по-русски
person: { name: Ира, locale: ru }
turns:
  - say: /pizza
    bot: { send: Какой размер? }
  - say: вторая
    bot: { send: Какое тесто? }
  - say: тонкое
    bot: { send: Когда? }
  - say: в 7 вечера
    bot: { send: "Пицца medium, thin, в 19:00. Заказываем?" }
  - say: заказываю
    bot: { send: Заказано. }
---
flow: pizza
name: alias, and an answer that fits nothing is a wrong answer
person: { name: Ира, locale: ru }
turns:
  - say: /pizza
    bot: { send: Какой размер? }
  - say: обычная
    bot: { send: Какое тесто? }
  - say: банан
    bot: [{ send: "Пожалуйста, выберите одну из кнопок." }, { send: Давайте позже. }]
`);
    expect(result.failure?.report).toBeUndefined();
  });

  it('a wrong expectation fails: the clarification is not a silent pick', async () => {
    const result = await run(`flow: pizza
name: must fail
turns:
  - say: /pizza
    bot: { send: Which size? }
  - say: large
    bot: { send: Which crust? }
  - say: crust
    bot: { send: When? }
`);
    expect(result.failure?.report).toContain('Did you mean: Thin crust, Thick crust?');
  });
});
