/** A typo in a Fluent variable is caught by check at the catalog's line, like one in a {{variable}} text. */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { loadCatalog } from '../../src/flows/texts.ts';

const flow = `flow: bye
start: ask
i18n: { default_locale: en, locales: [en, ru] }
steps:
  ask:
    type: input
    say: ask-name
    input: contact
    retries: { max: 2, exhausted: { goto: stop } }
    save: who
    next: done
  done:
    type: end
    say: bye
  stop:
    type: end
`;

const check = (en: string, ru: string) =>
  compileSources(
    [{ file: 'bye.flow.yaml', source: flow }],
    EMPTY_REGISTRY,
    new Map([
      ['en', loadCatalog('en', 'locales/en.ftl', `ask-name = Your contact?\n${en}`)],
      ['ru', loadCatalog('ru', 'locales/ru.ftl', `ask-name = Ваш контакт?\n${ru}`)],
    ]),
  ).problems.map(formatProblem);

describe('Fluent variables', () => {
  it('reports a variable the flow never saves at its line in the catalog, with a guess', () => {
    expect(check('bye = Bye, { $who_name }!\n', 'bye = Пока,\n  { $woh_name }!\n')).toEqual([
      'locales/ru.ftl:3:5: warning: unknown variable $woh_name in message "bye" (used by bye.flow.yaml)\n    hint: did you mean $who_name?',
    ]);
  });

  it('reports a field the saved value does not have (a contact has name, phone, user_id)', () => {
    expect(check('bye = Bye, { $who_nmae }!\n', 'bye = Пока, { $who_name }!\n')).toEqual([
      'locales/en.ftl:2:14: error: $who_nmae in message "bye": a shared contact (fields: name, phone, user_id) has no field "nmae"\n    hint: did you mean $who_name?',
    ]);
  });

  it('reports a message read where its variable may be unset, at the flow text', () => {
    const unset = flow.replace('exhausted: { goto: stop }', 'exhausted: { goto: done }');
    const problems = compileSources(
      [{ file: 'bye.flow.yaml', source: unset }],
      EMPTY_REGISTRY,
      new Map([
        ['en', loadCatalog('en', 'locales/en.ftl', 'ask-name = Contact?\nbye = Bye, { $who_name }!\n')],
      ]),
    ).problems.map((p) => `${p.file}:${p.line}: ${p.severity}: ${p.message}`);
    expect(problems.filter((p) => p.includes('unset'))).toEqual([
      'bye.flow.yaml:14: warning: $who_name (message "bye") reads "who", which is unset when the person comes to "done" from "ask" via exhausted',
    ]);
  });

  it('does not flag a selector on an unset variable: its default variant shows', () => {
    expect(
      check('bye = { $mood ->\n    [sad] Sorry\n   *[other] Bye\n  }, { $who_name }!\n', 'bye = Пока!\n'),
    ).toEqual([
      'locales/en.ftl:2:9: warning: unknown variable $mood in message "bye" (used by bye.flow.yaml)\n    hint: flow "bye" never saves or sets mood',
    ]);
    const known = flow
      .replace('locales: [en, ru]', 'locales: [en]')
      .replace(
        '    save: who\n',
        '    save: who\n    keyboard: [[{ id: sad, text: sad, set: { mood: sad } }]]\n',
      );
    const r = compileSources(
      [{ file: 'bye.flow.yaml', source: known }],
      EMPTY_REGISTRY,
      new Map([
        [
          'en',
          loadCatalog(
            'en',
            'locales/en.ftl',
            'ask-name = C?\nsad = Sad\nbye = { $mood ->\n    [sad] Sorry\n   *[other] Bye\n  }, { $who_name }!\n',
          ),
        ],
      ]),
    );
    expect(r.problems.map(formatProblem)).toEqual([]);
  });
});
