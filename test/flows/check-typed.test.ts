/** botflow check: options that typed answers cannot tell apart, per locale and by alias; unknown time zones. */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { loadCatalog } from '../../src/flows/texts.ts';

function check(source: string, catalogs: Record<string, string> = {}) {
  const cats = new Map(
    Object.entries(catalogs).map(([l, src]) => [l, loadCatalog(l, `locales/${l}.ftl`, src)]),
  );
  const r = compileSources([{ file: 'demo.flow.yaml', source }], EMPTY_REGISTRY, cats);
  return { lines: r.problems.map((p) => formatProblem({ ...p, hint: undefined })), problems: r.problems };
}

const literal = (options: string, extra = '') => `flow: demo
start: ask
steps:
  ask:
    type: input
    say: Which one?
    input: choice
    options:
${options}
    retries: { max: 2, exhausted: { goto: bye } }
${extra}    save: x
    next: bye
  bye:
    type: end
`;

describe('botflow check: options too close to tell apart when typed', () => {
  it('labels one typo apart, and labels equal after normalisation, with file:line and what to do', () => {
    const r = check(
      literal(`      - { id: cake, text: Birthday cake }
      - { id: cafe, text: Birthday cafe }
      - { id: a, text: "Window seat" }
      - { id: b, text: "window seat!" }`),
    );
    expect(r.lines).toEqual([
      'demo.flow.yaml:10:9: warning: options "cake" and "cafe" cannot be told apart when typed: "Birthday cake" and "Birthday cafe" are one typo apart',
      'demo.flow.yaml:12:9: warning: options "a" and "b" cannot be told apart when typed: "Window seat" and "window seat!" read the same',
    ]);
    expect(r.problems[0]!.hint).toMatch(/change one label or alias/);
  });

  it('an alias too close to another option’s label', () => {
    const r = check(
      literal(`      - { id: small, text: Small, aliases: [little] }
      - { id: large, text: Large, aliases: [smal] }`),
    );
    expect(r.lines).toEqual([
      'demo.flow.yaml:10:9: warning: options "small" and "large" cannot be told apart when typed: "Small" and "smal" are one typo apart',
    ]);
  });

  it('labels that differ enough pass: short words take no typo, words compared one by one', () => {
    const r = check(
      literal(`      - { id: on, text: Turn on }
      - { id: off, text: Turn off }
      - { id: name, text: Edit name }
      - { id: age, text: Edit age }`),
    );
    expect(r.lines).toEqual([]);
  });

  it('per locale: only the locale where two labels are close is named; menu buttons too', () => {
    const source = `flow: demo
start: menu
i18n: { default_locale: en, locales: [en, ru] }
steps:
  menu:
    type: menu
    say: title
    keyboard:
      - - { id: on, text: turn-on, goto: bye }
        - { id: off, text: turn-off, goto: bye }
  bye:
    type: end
`;
    const r = check(source, {
      en: 'title = Notifications\nturn-on = Turn on\nturn-off = Turn off\n',
      ru: 'title = Уведомления\nturn-on = Включить\nturn-off = Выключить\n',
    });
    expect(r.lines).toEqual([
      'demo.flow.yaml:10:11: warning: options "on" and "off" cannot be told apart when typed (ru): "Включить" and "Выключить" are one typo apart',
    ]);
  });

  it('aliases that are never read: on a button of an input step, on a link button of a menu', () => {
    const r = check(`flow: demo
start: ask
steps:
  ask:
    type: input
    say: Your name?
    input: text
    keyboard:
      - - { id: skip, text: Skip, aliases: [later], goto: menu }
    retries: { max: 2, exhausted: { goto: menu } }
    save: name
    next: menu
  menu:
    type: menu
    say: Menu
    keyboard:
      - - { text: Site, url: "https://example.com", aliases: [web] }
        - { id: bye, text: Bye, goto: bye }
  bye:
    type: end
`);
    expect(r.lines).toEqual([
      'demo.flow.yaml:9:35: warning: aliases of this button are never read: typed answers name the callback buttons of menu steps',
      'demo.flow.yaml:17:53: warning: aliases of this button are never read: typed answers name the callback buttons of menu steps',
    ]);
  });

  it('refuses a time zone the runtime does not know; a {{variable}} is read at run time, and checked like every read', () => {
    const bad = check(
      literal(
        '      - { id: a, text: Alpha }\n      - { id: b, text: Beta }',
        '    time_zone: Mars/Olympus\n',
      ),
    );
    expect(bad.lines).toEqual(['demo.flow.yaml:12:16: error: unknown time zone "Mars/Olympus"']);
    const good = check(
      literal(
        '      - { id: a, text: Alpha }\n      - { id: b, text: Beta }',
        '    set: { tz: Europe/Berlin }\n    time_zone: "{{tz}}"\n',
      ),
    );
    expect(good.lines).toEqual([]);
    const unknown = check(
      literal('      - { id: a, text: Alpha }\n      - { id: b, text: Beta }', '    time_zone: "{{tz}}"\n'),
    );
    expect(unknown.lines).toEqual(['demo.flow.yaml:12:19: warning: unknown variable "tz" in {{tz}}']);
  });
});
