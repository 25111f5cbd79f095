/** A typo in a Fluent variable is caught by check, like one in a {{variable}} text. */
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
    input: text
    retries: { max: 2, exhausted: { goto: done } }
    save: name
    next: done
  done:
    type: end
    say: bye
`;

describe('Fluent variables', () => {
  it('warns about a variable the flow never saves, in the locale whose catalog has it', () => {
    const catalogs = new Map([
      ['en', loadCatalog('en', 'locales/en.ftl', 'ask-name = Your name?\nbye = Bye, { $name }!\n')],
      ['ru', loadCatalog('ru', 'locales/ru.ftl', 'ask-name = Как вас зовут?\nbye = Пока, { $nmae }!\n')],
    ]);
    const { problems } = compileSources([{ file: 'bye.flow.yaml', source: flow }], EMPTY_REGISTRY, catalogs);
    expect(problems.map(formatProblem)).toEqual([
      expect.stringMatching(
        /^bye\.flow\.yaml:14:\d+: warning: variable "nmae" of message "bye" \(locales\/ru\.ftl\) is never saved by this flow/,
      ),
    ]);
  });
});
