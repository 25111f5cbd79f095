/** botflow's own texts speak the person's language in i18n flows, and flows can override them. */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { loadCatalog } from '../../src/flows/texts.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';

const flow = (locales: string) => `flow: age
start: ask
i18n: { default_locale: en, locales: [${locales}] }
triggers:
  - bot_started: true
commands:
  cancel: { say: stopped, goto: done }
steps:
  ask:
    type: input
    say: ask-age
    input: integer
    retries: { max: 3, exhausted: { goto: done } }
    save: age
    next: done
  done:
    type: end
    say: bye
`;

const catalogs = (extra: Record<string, string> = {}) =>
  new Map(
    Object.entries({
      en: 'ask-age = Your age?\nbye = Bye.\nstopped = Stopped.\n',
      ru: 'ask-age = Сколько вам лет?\nbye = Пока.\nstopped = Остановлено.\n',
      ...extra,
    }).map(([locale, text]) => [locale, loadCatalog(locale, `locales/${locale}.ftl`, text)]),
  );

const transcript = `flow: age
name: a Russian person
person: { name: Anna, locale: ru }
turns:
  - start: true
    bot: { send: "Сколько вам лет?" }
  - say: "2,5"
    bot: { send: "Пожалуйста, отправьте целое число, например 3." }
  - say: /support
    bot: { send: "/support сейчас недоступна: сначала завершите этот шаг или отправьте /cancel, чтобы прервать." }
  - say: "30"
    bot: { send: "Пока." }
`;

describe('built-in texts', () => {
  it("are sent in the person's language when botflow ships it (en, ru)", async () => {
    const { flows, problems } = compileSources(
      [{ file: 'age.flow.yaml', source: flow('en, ru') }],
      EMPTY_REGISTRY,
      catalogs(),
    );
    expect(problems).toEqual([]);
    const parsed = parseTranscripts(transcript, 'age.test.yaml');
    const result = await runTranscript(parsed.transcripts[0]!, { flows });
    expect(result.failure?.report ?? 'passed').toBe('passed');
  }, 30_000);

  it("are overridden by the flow's catalog (botflow-<key>)", async () => {
    const ru =
      'ask-age = Сколько вам лет?\nbye = Пока.\nstopped = Стоп.\nbotflow-error-integer = Только цифры, пожалуйста.\n';
    const { flows } = compileSources(
      [{ file: 'age.flow.yaml', source: flow('en, ru') }],
      EMPTY_REGISTRY,
      catalogs({ ru }),
    );
    const parsed = parseTranscripts(
      transcript.replace('Пожалуйста, отправьте целое число, например 3.', 'Только цифры, пожалуйста.'),
      'age.test.yaml',
    );
    const result = await runTranscript(parsed.transcripts[0]!, { flows });
    expect(result.failure?.report ?? 'passed').toBe('passed');
  }, 30_000);

  it('botflow check warns about a locale botflow does not ship and the catalog does not cover', () => {
    const de = 'ask-age = Wie alt sind Sie?\nbye = Tschüss.\nstopped = Gestoppt.\n';
    const { problems } = compileSources(
      [{ file: 'age.flow.yaml', source: flow('en, ru, de') }],
      EMPTY_REGISTRY,
      catalogs({ de }),
    );
    expect(problems.map(formatProblem)).toEqual([
      expect.stringMatching(
        /warning: botflow has no built-in texts in "de": 13 of them .* would be sent in English/,
      ),
    ]);
  });
});
