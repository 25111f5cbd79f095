/**
 * `botflow check` for intents (`understand:`): the classifier is "keywords" or a registered task; the
 * keyword classifier has keywords for every intent it is asked about, and its patterns are safe; global
 * intents use the keyword classifier (they are read at every step, synchronously). That a step's own
 * intents can be reached is its kind's check (an input that takes any text leaves them nothing:
 * kinds/input/check.ts). Routes to unknown steps are checked with every other route (lint.ts).
 */
import type { LintInput, Report } from './lint-input.ts';
import type { Path } from './problems.ts';
import { closest } from './problems.ts';
import { classifierSlots } from './registry.ts';
import { compileFlowRegex } from './safe-regex.ts';
import type { Understand } from './schema.ts';
import { KEYWORDS_CLASSIFIER } from './schema-intents.ts';

/** Runs the intent checks on one flow. */
export function lintIntents(x: LintInput, report: Report): void {
  const { flow } = x;
  const keywords = flow.intents ?? {};
  const tasks = Object.keys(x.registry.tasks ?? {});
  const check = (path: Path, u: Understand, global: boolean) => {
    const classifier = u.classifier ?? KEYWORDS_CLASSIFIER;
    if (classifier !== KEYWORDS_CLASSIFIER) {
      if (global)
        report(
          'global-classifier',
          [...path, 'classifier'],
          'error',
          'global intents use the built-in keyword classifier (they are read at every step, at once)',
          `remove classifier: ${classifier} here, and put it on the steps that need it`,
        );
      else if (!Object.hasOwn(x.registry.tasks ?? {}, classifier)) {
        const guess = closest(classifier, [...tasks, KEYWORDS_CLASSIFIER]);
        report(
          'unknown-classifier',
          [...path, 'classifier'],
          'error',
          `unknown classifier "${classifier}"`,
          guess
            ? `did you mean "${guess}"?`
            : `register a task with the classifier shape (defineClassifier({ run, slots })), or use "${KEYWORDS_CLASSIFIER}"`,
          { within: classifier, ...(guess ? { change: guess } : {}) },
        );
      } else
        for (const [intent, r] of Object.entries(u.intents))
          if (r.save_slots && !classifierSlots(x.registry, classifier, intent))
            report(
              'undeclared-slots',
              [...path, 'intents', intent, 'save_slots'],
              'note',
              `classifier "${classifier}" declares no slots for intent "${intent}": check cannot know the variables save_slots sets`,
              `declare them: defineClassifier({ slots: { ${intent}: { day: z.string() } }, run })`,
            );
      return;
    }
    for (const intent of Object.keys(u.intents)) {
      if (Object.hasOwn(keywords, intent)) continue;
      const guess = closest(intent, Object.keys(keywords));
      report(
        'unknown-intent',
        [...path, 'intents', intent],
        'error',
        `intent "${intent}" has no keywords for the keyword classifier`,
        guess
          ? `did you mean "${guess}"? Else add intents: { ${intent}: [...] }`
          : `add intents: { ${intent}: ["word", "a phrase"] } at the top of the flow`,
        { key: true, ...(guess ? { change: guess } : {}) },
      );
    }
  };
  if (flow.understand) check(['understand'], flow.understand, true);
  for (const [id, step] of Object.entries(flow.steps)) {
    if (!('understand' in step) || !step.understand) continue;
    check(['steps', id, 'understand'], step.understand, false);
  }
  for (const [intent, k] of Object.entries(keywords)) {
    const lists = Array.isArray(k) ? { '': k } : k;
    for (const [lang, words] of Object.entries(lists))
      words.forEach((word, i) => {
        const m = /^\/(.+)\/([a-z]*)$/s.exec(word);
        if (!m) return;
        const compiled = compileFlowRegex(m[1]!, m[2]!.includes('i') ? m[2]! : `${m[2]}i`);
        const at: Path = lang ? ['intents', intent, lang, i] : ['intents', intent, i];
        if ('error' in compiled)
          report('bad-regex', at, 'error', `the regular expression ${word} ${compiled.error}`);
      });
  }
}
