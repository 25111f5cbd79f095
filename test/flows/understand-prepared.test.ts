/**
 * Typed answers read against candidates prepared once and kept (typed-answers.ts): a different locale, flow
 * version or `options_from` list gets its own candidates, labels that change with the variables are read per
 * answer, and the cache stays within its bounds.
 */
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { loadCatalog, textRenderer } from '../../src/flows/texts.ts';
import { CandidateCache, textsHash } from '../../src/flows/understand/candidate-cache.ts';
import { prepareCandidates } from '../../src/flows/understand/match.ts';
import { Drive } from './drive.ts';

const DRINKS = (tea = 'opt-tea') => `
flow: drinks
start: pick
i18n: { default_locale: en, locales: [en, ru] }
steps:
  pick:
    type: input
    say: ask
    input: choice
    options:
      - { id: tea, text: ${tea}, aliases: { ru: [чаек] } }
      - { id: coffee, text: opt-coffee, aliases: { en: [espresso] } }
    retries: { max: 5, exhausted: { goto: done } }
    save: drink
    next: menu
  menu:
    type: menu
    say: ask
    keyboard:
      - - { id: more, text: opt-more, goto: done }
        - { id: stop, text: opt-stop, goto: done }
  done:
    type: end
    say: ask
`;
const catalogs = (en: string, ru: string) =>
  new Map([
    ['en', loadCatalog('en', 'locales/en.ftl', `ask = ?\n${en}`)],
    ['ru', loadCatalog('ru', 'locales/ru.ftl', `ask = ?\n${ru}`)],
  ]);
const EN = 'opt-tea = Tea\nopt-green = Matcha\nopt-coffee = Coffee\nopt-more = More\nopt-stop = Stop\n';
const RU = 'opt-tea = Чай\nopt-green = Матча\nopt-coffee = Кофе\nopt-more = Ещё\nopt-stop = Хватит\n';

function compile(source: string, cat = catalogs(EN, RU)): FlowDefinition {
  const r = compileSources(
    [{ file: `${/flow: (\w+)/.exec(source)![1]}.flow.yaml`, source }],
    EMPTY_REGISTRY,
    cat,
  );
  expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return r.flows[0]!;
}
/** A conversation waiting at `step`, for a person of `locale` with `vars`. */
function at(def: FlowDefinition, step: string, locale: string, vars: Record<string, unknown> = {}): Drive {
  return new Drive(def, {
    snapshot: def.machine.resolveState({ value: step, context: { vars, retries: 0, locale } }),
  });
}
const answer = (def: FlowDefinition, locale: string, text: string, step = 'pick', vars = {}) => {
  const d = at(def, step, locale, vars);
  d.text(text);
  return d;
};

describe('prepared candidates, kept per flow version, locale and list', () => {
  it('a person of another locale gets the labels and aliases of theirs', () => {
    const def = compile(DRINKS());
    // The Russian reading is prepared first; the English person must not get it.
    expect(answer(def, 'ru', 'Кофе').vars.drink).toBe('coffee');
    expect(answer(def, 'ru', 'чаек').vars.drink).toBe('tea');
    expect(answer(def, 'en', 'Кофе').vars.drink).toBeUndefined();
    expect(answer(def, 'en', 'чаек').vars.drink).toBeUndefined();
    expect(answer(def, 'en', 'espresso').vars.drink).toBe('coffee');
    // The default locale's labels and aliases are read too.
    expect(answer(def, 'ru', 'espresso').vars.drink).toBe('coffee');
    expect(answer(def, 'ru', 'coffee').vars.drink).toBe('coffee');
    // A menu's typed buttons too.
    expect(answer(def, 'ru', 'хватит', 'menu').step).toBe('done');
    expect(answer(def, 'en', 'хватит', 'menu').step).toBe('menu');
    expect(answer(def, 'en', 'stop', 'menu').step).toBe('done');
  });

  it('another version of the flow gets its own labels', () => {
    const v1 = compile(DRINKS());
    const v2 = compile(DRINKS('opt-green'));
    expect(answer(v1, 'en', 'Tea').vars.drink).toBe('tea');
    expect(answer(v1, 'ru', 'Чай').vars.drink).toBe('tea');
    expect(answer(v2, 'en', 'matcha').vars.drink).toBe('tea');
    expect(answer(v2, 'en', 'Tea').vars.drink).toBe('tea'); // its id
    expect(answer(v2, 'ru', 'Чай').vars.drink).toBeUndefined();
    expect(answer(v2, 'ru', 'матча').vars.drink).toBe('tea');
    expect(answer(v1, 'en', 'matcha').vars.drink).toBeUndefined();
    expect(answer(v1, 'ru', 'матча').vars.drink).toBeUndefined();
  });

  it('labels that change with the variables are read for each person', () => {
    const literal = compile(
      DRINKS()
        .replace('i18n: { default_locale: en, locales: [en, ru] }\n', '')
        .replace('text: opt-tea', 'text: "Tea for {{name}}"')
        .replace('text: opt-coffee', 'text: Coffee')
        .replace(/text: opt-\w+/g, 'text: X')
        .replace(/say: ask/g, 'say: "?"'),
      new Map(),
    );
    expect(answer(literal, 'en', 'tea for ann', 'pick', { name: 'Ann' }).vars.drink).toBe('tea');
    expect(answer(literal, 'en', 'tea for bob', 'pick', { name: 'Bob' }).vars.drink).toBe('tea');
    expect(answer(literal, 'en', 'tea for bob', 'pick', { name: 'Ann' }).vars.drink).toBeUndefined();
    const fluent = compile(
      DRINKS(),
      catalogs(EN.replace('opt-tea = Tea', 'opt-tea = Tea for { $name }'), RU),
    );
    expect(answer(fluent, 'en', 'tea for ann', 'pick', { name: 'Ann' }).vars.drink).toBe('tea');
    expect(answer(fluent, 'en', 'tea for bob', 'pick', { name: 'Bob' }).vars.drink).toBe('tea');
    expect(answer(fluent, 'en', 'tea for bob', 'pick', { name: 'Ann' }).vars.drink).toBeUndefined();
  });

  it('an options_from list: each conversation reads the list it holds', () => {
    const def = compile(`
flow: slots
start: wait
steps:
  wait:
    type: menu
    say: "?"
    keyboard:
      - - { id: go, text: Go, goto: pick }
  pick:
    type: input
    say: "?"
    input: choice
    options_from: { list: slots, text: "{{item.name}}", value: item.id, empty: { goto: done } }
    retries: { max: 5, exhausted: { goto: done } }
    save: slot
    next: done
  done:
    type: end
    say: "."
`);
    const list = (...names: string[]) => names.map((name, i) => ({ id: `${name}-${i}`, name }));
    const pick = (slots: unknown[], text: string) => {
      const d = at(def, 'wait', 'en', { slots });
      d.press('go');
      d.text(text);
      return d.vars.slot;
    };
    expect(pick(list('Morning', 'Noon', 'Evening'), 'noon')).toBe('Noon-1');
    expect(pick(list('Breakfast', 'Lunch', 'Dinner'), 'noon')).toBeUndefined();
    expect(pick(list('Breakfast', 'Lunch', 'Dinner'), 'lunch')).toBe('Lunch-1');
    expect(pick(list('Morning', 'Noon', 'Evening'), 'lunch')).toBeUndefined();
    // The same texts with other values: the values are the conversation's own.
    const other = [
      { id: 'x', name: 'Morning' },
      { id: 'y', name: 'Noon' },
    ];
    expect(pick(other, 'noon')).toBe('y');
    expect(textsHash(['ab', 'c'])).not.toBe(textsHash(['a', 'bc']));
  });
});

describe('the cache of prepared candidates', () => {
  const of = (n: number) =>
    prepareCandidates(Array.from({ length: n }, (_, i) => ({ id: `o${i}`, labels: [`Option ${i}`] })));

  it('keeps at most its entries, the least recently used leaving first', () => {
    const cache = new CandidateCache(2, 1_000);
    let built = 0;
    const get = (key: string) =>
      cache.get(key, () => {
        built++;
        return of(1);
      });
    get('a');
    get('b');
    get('a'); // a is now the most recent
    get('c'); // b leaves
    expect(built).toBe(3);
    get('a');
    expect(built).toBe(3);
    get('b');
    expect(built).toBe(4);
    expect(cache.stats.entries).toBe(2);
  });

  it('keeps at most its names in all; a list larger than that is never kept', () => {
    const cache = new CandidateCache(100, 10);
    cache.get('a', () => of(4)); // 8 names: labels and ids
    cache.get('b', () => of(1)); // 2 more: 10
    expect(cache.stats).toEqual({ entries: 2, names: 10 });
    cache.get('c', () => of(2)); // 4 more: a leaves
    expect(cache.stats).toEqual({ entries: 2, names: 6 });
    cache.get('d', () => of(6)); // 12: over the bound alone
    expect(cache.stats).toEqual({ entries: 2, names: 6 });
  });
});

describe('texts that never change with the variables', () => {
  it('a literal without {{…}}; a Fluent message without placeables', () => {
    const literal = textRenderer('html', undefined);
    expect(literal.constant?.('Tea', 'en')).toBe(true);
    expect(literal.constant?.('Tea for {{ name }}', 'en')).toBe(false);
    const fluent = textRenderer('html', {
      default_locale: 'en',
      catalogs: catalogs('a = Tea\nb = Tea for { $name }\nc = { -brand }\n-brand = Acme\n', 'a = Чай\n'),
    });
    expect(fluent.constant?.('a', 'ru')).toBe(true);
    expect(fluent.constant?.('b', 'en')).toBe(false);
    expect(fluent.constant?.('b', 'ru')).toBe(false); // read from the default catalog
    expect(fluent.constant?.('c', 'en')).toBe(false); // a placeable: not known to be constant
    expect(fluent.constant?.('missing', 'en')).toBe(true); // shown as its id
  });
});
