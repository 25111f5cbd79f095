// `npm run bench -- understand [--samples N] [--only case,...] [--show] [--by-answer]`: what a typed answer costs as the engine reads it. The
// compiled flow's own `answer` guard (the first thing the machine asks of a message at an input step; the
// action and the other guards reuse its reading) is called with a fresh event per sample, as the engine
// calls it: labels rendered in the person's locale and the flow's default one, aliases, positions, yes/no,
// typos, words, dates in words. Three figures: a 20-option choice (declared options, Fluent labels in en
// and ru, a few aliases), a 200-choice `options_from` list (paged 8 a time), and a `date` input. No forced
// GC between samples. Figures for people, then one JSON line.
//
// The mix of answers is fixed and published (here and in docs/benchmarks.md): MIX_20, MIX_200, MIX_DATES.
// `--show` prints what each answer reads as (the value saved, or the reply); `--by-answer` each one's p50/p99.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { transition } from 'xstate';
import type { FlowDefinition, FlowEvent } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { loadCatalog } from '../../src/flows/texts.ts';

/** The 20 options: id, English label, Russian label, aliases. */
const PIZZAS: [string, string, string, string?][] = [
  ['margherita', 'Margherita', 'Маргарита'],
  ['pepperoni', 'Pepperoni', 'Пепперони', '{ ru: [пеперони] }'],
  ['four_cheeses', 'Four cheeses', 'Четыре сыра', '{ en: [4 cheese, quattro formaggi], ru: [4 сыра] }'],
  ['bbq', 'BBQ chicken', 'Курица барбекю', '[BBQ, барбекю]'],
  ['hawaiian', 'Hawaiian', 'Гавайская'],
  ['vegetarian', 'Vegetarian', 'Вегетарианская', '{ en: [veggie], ru: [вегги, овощная] }'],
  ['diavola', 'Diavola', 'Дьявола'],
  ['capricciosa', 'Capricciosa', 'Капричоза'],
  ['stagioni', 'Quattro stagioni', 'Четыре сезона'],
  ['marinara', 'Marinara', 'Маринара'],
  ['calzone', 'Calzone', 'Кальцоне'],
  ['mushroom', 'Mushroom', 'Грибная'],
  ['seafood', 'Seafood', 'С морепродуктами'],
  ['carbonara', 'Carbonara', 'Карбонара'],
  ['mexican', 'Mexican', 'Мексиканская'],
  ['meat', 'Meat lovers', 'Мясная'],
  ['tuna', 'Tuna', 'С тунцом'],
  ['spinach', 'Spinach and feta', 'Шпинат и фета'],
  ['truffle', 'Truffle', 'Трюфельная'],
  ['none', 'No pizza, thanks', 'Нет, спасибо'],
];

/** Typed answers at the 20-option step: [locale, text]. Exact labels, aliases, positions, typos, yes/no, words, nothing. */
export const MIX_20: [string, string][] = [
  ['en', 'Margherita'], // exact label
  ['en', 'the second one'], // position in words
  ['en', 'Peperoni'], // typo
  ['en', 'four cheeses'], // exact label, other case
  ['en', 'BBQ'], // alias
  ['en', 'veggie'], // alias (en)
  ['en', '3'], // position in digits
  ['en', 'last'], // position
  ['en', 'nope'], // no → "No pizza, thanks"
  ['en', 'Quatro stagoni'], // two typos in two words
  ['en', 'feta'], // words of a label
  ['en', 'a large one with extra cheese please'], // nothing
  ['en', 'hello'], // nothing
  ['en', 'Маргарита'], // nothing: labels are read in the person's locale and the default one (en)
  ['ru', 'третья'], // position in words
  ['ru', 'четыре сыра'], // exact label
  ['ru', 'Пеперони'], // alias (ru)
  ['ru', 'margherita'], // the default locale's label
  ['ru', 'барбекю'], // alias
  ['ru', 'нет'], // no
  ['ru', 'пятую'], // position
  ['ru', 'Грибная пицца'], // nothing (a word more than the label: words must all be the label's)
  ['ru', 'Капричоза!'], // exact, punctuation
  ['ru', 'что-нибудь без мяса'], // nothing
  ['ru', 'да'], // yes: no option means yes
  ['ru', 'Карбанара'], // typo
];

const ADJECTIVES = [
  'Spicy',
  'Smoked',
  'Creamy',
  'Grilled',
  'Crispy',
  'Sweet',
  'Garlic',
  'Lemon',
  'Honey',
  'Pepper',
];
const ADJECTIVES_RU = [
  'Острый',
  'Копчёный',
  'Сливочный',
  'Гриль',
  'Хрустящий',
  'Сладкий',
  'Чесночный',
  'Лимонный',
  'Медовый',
  'Перечный',
];
const NOUNS = ['chicken', 'salmon', 'mushroom', 'tofu', 'beef', 'shrimp', 'pork', 'duck', 'lamb', 'cod'];
const NOUNS_RU = [
  'цыплёнок',
  'лосось',
  'гриб',
  'тофу',
  'бифштекс',
  'креветки',
  'свинина',
  'утка',
  'ягнёнок',
  'треска',
];
/** The 200 choices of the `options_from` step: "Spicy chicken (S)", "Smoked chicken (L)", …, then Russian. */
const DISHES = ADJECTIVES.flatMap((a, i) => NOUNS.map((n) => `${a} ${n} (${i % 2 ? 'L' : 'S'})`));
const DISHES_RU = ADJECTIVES_RU.flatMap((a) => NOUNS_RU.map((n) => `${a} ${n}`));
const LIST = [...DISHES, ...DISHES_RU].map((name, i) => ({ id: `d${i}`, name }));

/** Typed answers at the 200-choice step. */
export const MIX_200: [string, string][] = [
  ['en', 'Spicy chicken (S)'], // exact
  ['en', 'the second one'], // position
  ['en', '150'], // position in digits
  ['en', 'Smokd salmon (L)'], // typo
  ['en', 'grilled tofu'], // words of one label
  ['en', 'salmon'], // words: fits ten → asks which one
  ['en', 'yes'], // yes: no option means it
  ['en', 'something light'], // nothing
  ['en', 'last'], // position
  ['ru', 'Острый цыпленок'], // exact (ё = е)
  ['ru', 'третий'], // position
  ['ru', 'Медовый лососъ'], // typo
  ['ru', 'креветки'], // words: fits ten → asks which one
  ['ru', 'нет'], // no
  ['ru', 'хочу что-то без мяса'], // nothing
];

/** Typed answers at the `date` step (the person's zone Europe/Moscow). */
export const MIX_DATES: [string, string][] = [
  ['en', 'tomorrow'],
  ['en', 'next friday'],
  ['en', 'in 3 days'],
  ['en', '31.12.2026'],
  ['en', 'whenever'],
  ['ru', 'завтра'],
  ['ru', 'в пятницу'],
  ['ru', 'через 3 дня'],
  ['ru', 'послезавтра'],
  ['ru', 'когда-нибудь'],
];

const yamlAliases = (a?: string) => (a ? `, aliases: ${a}` : '');
const FLOW = `
flow: bench
start: pick
i18n: { default_locale: en, locales: [en, ru] }
steps:
  pick:
    type: input
    say: pick-say
    input: choice
    options:
${PIZZAS.map(([id, , , aliases]) => `      - { id: ${id}, text: pizza-${id}${yamlAliases(aliases)} }`).join('\n')}
    retries: { max: 20, exhausted: { goto: done } }
    save: pizza
    next: go
  go:
    type: menu
    say: go-say
    keyboard:
      - - { id: go, text: go-button, goto: dish }
  dish:
    type: input
    say: dish-say
    input: choice
    options_from: { list: dishes, text: dish-item, value: item.id, page_size: 8, empty: { goto: done } }
    retries: { max: 20, exhausted: { goto: done } }
    save: dish
    next: day
  day:
    type: input
    say: day-say
    input: date
    time_zone: Europe/Moscow
    retries: { max: 20, exhausted: { goto: done } }
    save: day
    next: done
  done:
    type: end
    say: done-say
`;
const catalog = (labels: (p: (typeof PIZZAS)[number]) => string, rest: string) =>
  `${PIZZAS.map((p) => `pizza-${p[0]} = ${labels(p)}`).join('\n')}\n${rest}`;
const EN = catalog(
  (p) => p[1],
  'pick-say = Which pizza?\ngo-say = Go?\ngo-button = Go\ndish-say = Which dish?\ndish-item = { $item_name }\nday-say = Which day?\ndone-say = Done.\n',
);
const RU = catalog(
  (p) => p[2],
  'pick-say = Какую пиццу?\ngo-say = Дальше?\ngo-button = Дальше\ndish-say = Какое блюдо?\ndish-item = { $item_name }\nday-say = Какой день?\ndone-say = Готово.\n',
);

function compile(): FlowDefinition {
  const catalogs = new Map([
    ['en', loadCatalog('en', 'locales/en.ftl', EN)],
    ['ru', loadCatalog('ru', 'locales/ru.ftl', RU)],
  ]);
  const r = compileSources([{ file: 'bench.flow.yaml', source: FLOW }], EMPTY_REGISTRY, catalogs);
  const errors = r.problems.filter((p) => p.severity === 'error');
  if (errors.length) throw new Error(`the bench's flow: ${errors.map((p) => p.message).join('; ')}`);
  return r.flows[0]!;
}

const NOW = Date.parse('2026-11-28T12:00:00Z');
const meta = { conversation: 'bench', chatId: 1, userId: 1, now: NOW };
const said = (text: string) =>
  ({
    type: 'message',
    text,
    attachments: [],
    message: { body: { mid: 'm', seq: 1, text } },
    meta,
  }) as unknown as FlowEvent;

type Guard = (args: { context: unknown; event: FlowEvent }, params: { step: string }) => boolean;
type Context = { vars: Record<string, unknown>; locale?: string; retries: number; choices?: unknown[] };

/** The machine's context at a step for a person of `locale`, as the engine holds it. */
function contextAt(def: FlowDefinition, stepKey: string, locale: string): Context {
  // A few variables, as a conversation holds them (Fluent's arguments are made of all of them).
  const vars = { name: 'Ann', phone: '+79990001122', guests: 2 };
  if (stepKey !== 'dish') return { vars, locale, retries: 0 };
  const context: Context = { vars: { ...vars, dishes: LIST }, locale, retries: 0 };
  // Entering the list's step copies its choices (rendered once) into the context: Go pressed at the menu.
  const state = def.machine.resolveState({ value: 'go', context });
  const press = {
    type: 'button',
    button: 'go',
    callbackId: 'c',
    message: { body: { mid: 'm', seq: 1 } },
    meta,
  };
  const [next] = transition(def.machine, state, press as FlowEvent);
  return next.context as Context;
}

/** `--show`: what each answer of the mix reads as, through the machine's transition (saved, or the reply). */
function show(def: FlowDefinition, stepKey: string, locale: string, text: string) {
  const state = def.machine.resolveState({ value: stepKey, context: contextAt(def, stepKey, locale) });
  const [next, actions] = transition(def.machine, state, said(text));
  const saved = (next.context as Context).vars[{ pick: 'pizza', dish: 'dish', day: 'day' }[stepKey]!];
  const reply = actions
    .map((a) => (a as { params?: { args?: { text?: string } } }).params?.args?.text)
    .find(Boolean);
  const read = saved !== undefined ? `saved ${JSON.stringify(saved)}` : `replied ${JSON.stringify(reply)}`;
  console.log(`  ${stepKey} ${locale} ${JSON.stringify(text)}: ${read}`);
}

const samples = (() => {
  const i = process.argv.indexOf('--samples');
  return i > 0 ? Number(process.argv[i + 1]) : 20_000;
})();

/**
 * p50/p90/p99 (µs) of the guard over the mix, `samples` answers (cycling through it) after a warm-up.
 * `restored`: each answer on a context just read back from storage (a copy of it, made outside the
 * timing), as for a conversation the engine no longer holds in memory.
 */
function measure(def: FlowDefinition, stepKey: string, mix: readonly [string, string][], restored = false) {
  const answer = (def.machine as unknown as { implementations: { guards: Record<string, Guard> } })
    .implementations.guards.answer!;
  const contexts = new Map(['en', 'ru'].map((l) => [l, contextAt(def, stepKey, l)]));
  const params = { step: stepKey };
  const byAnswer = mix.map(() => [] as number[]);
  const run = (n: number, into?: number[]) => {
    let accepted = 0;
    for (let i = 0; i < n; i++) {
      const [locale, text] = mix[i % mix.length]!;
      const held = contexts.get(locale)!;
      const context = restored ? (JSON.parse(JSON.stringify(held)) as Context) : held;
      const event = said(text);
      const t = performance.now();
      if (answer({ context, event }, params)) accepted++;
      const us = (performance.now() - t) * 1000;
      into?.push(us);
      if (into) byAnswer[i % mix.length]!.push(us);
    }
    return accepted;
  };
  if (process.argv.includes('--show') && !restored)
    for (const [locale, text] of mix) show(def, stepKey, locale, text);
  run(Math.min(samples, 5_000)); // warm-up (the JIT; the first answers also prepare what is reused)
  const times: number[] = [];
  const accepted = run(samples, times);
  if (process.argv.includes('--by-answer'))
    mix.forEach(([locale, text], i) => {
      const t = byAnswer[i]!.sort((a, b) => a - b);
      console.log(
        `  ${stepKey} ${locale} ${JSON.stringify(text)}: p50 ${quantile(t, 0.5)} µs, p99 ${quantile(t, 0.99)} µs`,
      );
    });
  times.sort((a, b) => a - b);
  return {
    cpu_us_per_op: cpuPerAnswer(answer, contexts, mix, restored, params),
    p50_us: quantile(times, 0.5),
    p90_us: quantile(times, 0.9),
    p99_us: quantile(times, 0.99),
    max_us: quantile(times, 1),
    accepted_share: +(accepted / samples).toFixed(3),
  };
}

/**
 * CPU (user + system, all threads: GC included) per answer over `samples` more answers, without the
 * clock read around each one: batches of 500 whose events (and, `restored`, contexts) are made outside
 * the measured loop. The figure `npm run bench:ab` compares between two commits.
 */
function cpuPerAnswer(
  answer: Guard,
  contexts: Map<string, Context>,
  mix: readonly [string, string][],
  restored: boolean,
  params: { step: string },
): number {
  const batch = 500;
  let micros = 0;
  let done = 0;
  while (done < samples) {
    const n = Math.min(batch, samples - done);
    const args = Array.from({ length: n }, (_, j) => {
      const [locale, text] = mix[(done + j) % mix.length]!;
      const held = contexts.get(locale)!;
      return { context: restored ? (JSON.parse(JSON.stringify(held)) as Context) : held, event: said(text) };
    });
    const started = process.cpuUsage();
    for (let j = 0; j < n; j++) answer(args[j]!, params);
    const used = process.cpuUsage(started);
    micros += used.user + used.system;
    done += n;
  }
  return +(micros / samples).toFixed(2);
}

/** The `q` quantile of sorted times, to 0.1 µs. */
function quantile(sorted: readonly number[], q: number): number {
  return +sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
}

/** The figures: name in the JSON line, what it is, the step, the mix, whether on a context read back. */
const CASES = [
  { name: 'options_20', label: '20 declared options (en/ru labels, aliases)', step: 'pick', mix: MIX_20 },
  { name: 'options_200', label: '200 options_from choices (paged by 8)', step: 'dish', mix: MIX_200 },
  {
    name: 'options_200_restored',
    label: 'the same, each on a context read back from storage',
    step: 'dish',
    mix: MIX_200,
    restored: true,
  },
  { name: 'dates', label: 'date in words (Europe/Moscow)', step: 'day', mix: MIX_DATES },
] as const;
// `--only dates,options_20`: those figures alone (a profile of one case, a quicker A/B run).
const only = (() => {
  const i = process.argv.indexOf('--only');
  return i > 0 ? new Set(process.argv[i + 1]!.split(',')) : undefined;
})();

const def = compile();
const loadBefore = os.loadavg()[0]!;
const results: Record<string, ReturnType<typeof measure>> = {};
for (const c of CASES)
  if (!only || only.has(c.name)) results[c.name] = measure(def, c.step, c.mix, 'restored' in c && c.restored);
const load = os.loadavg().map((x) => +x.toFixed(2));
const line = (name: string, r: ReturnType<typeof measure>) =>
  console.log(
    `${name}: p50 ${r.p50_us} µs, p90 ${r.p90_us} µs, p99 ${r.p99_us} µs, max ${r.max_us} µs, CPU ${r.cpu_us_per_op} µs per answer (${samples} answers, ${Math.round(r.accepted_share * 100)}% accepted)`,
  );
for (const c of CASES) if (results[c.name]) line(c.label, results[c.name]!);
console.log(
  `load average: ${load.join(' ')} (${os.cpus().length} cores; 1-minute ${loadBefore.toFixed(2)} at the start)`,
);
console.log(
  JSON.stringify({
    bench: 'understand',
    samples,
    ...results,
    ...(results.options_20 ? { p50_us: results.options_20.p50_us, p99_us: results.options_20.p99_us } : {}),
    loadavg: load,
    loadavg_start: +loadBefore.toFixed(2),
  }),
);
