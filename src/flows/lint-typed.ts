/**
 * `botflow check` for typed answers: two options of one step (or two buttons of one menu) that a typed
 * answer cannot tell apart — equal after normalisation, or within the typo allowance of each other — in any
 * locale, by label or alias (what each kind lets a person name: its `typedChoices`). An input's unknown
 * `time_zone:` is the input's own check (kinds/input/check.ts).
 */

import type { TypedChoice } from './kinds/contract.ts';
import { kindOf } from './kinds/registry.ts';
import type { LintInput, Report } from './lint-input.ts';
import type { FlowFile } from './schema.ts';
import { namedButtons } from './typed-answers.ts';
import { tooClose } from './understand/match.ts';
import { aliasesFor } from './understand/options.ts';

/** Something a person can name by typing at a step, with where it is written. */
type Named = TypedChoice;

/** The label of a flow text in a locale: the catalog message (without arguments), or the literal text. */
function labelIn(x: LintInput, text: string, locale: string | undefined): string | undefined {
  if (!x.flow.i18n || !locale) return text;
  const bundle = x.catalogs.get(locale)?.bundle;
  const message = bundle?.getMessage(text);
  if (!bundle || !message?.value) return undefined;
  return bundle.formatPattern(message.value, {}, []);
}

function lintOptions(x: LintInput, options: readonly Named[], report: Report): void {
  const flow: FlowFile = x.flow;
  const locales: (string | undefined)[] = flow.i18n
    ? (flow.i18n.locales ?? [...x.catalogs.keys()])
    : [undefined];
  const reported = new Set<string>();
  for (const locale of locales) {
    const looked = locale ? [locale] : [];
    const names = options.map((o) => {
      const label = labelIn(x, o.text, locale);
      return [...(label ? [label] : []), ...aliasesFor(o.aliases, looked)];
    });
    for (let i = 0; i < options.length; i++) {
      for (let j = i + 1; j < options.length; j++) {
        const pair = `${i}:${j}`;
        if (reported.has(pair)) continue;
        for (const a of names[i]!) {
          const b = names[j]!.find((n) => tooClose(a, n));
          if (b === undefined) continue;
          reported.add(pair);
          const how = tooClose(a, b) === 'same' ? 'read the same' : 'are one typo apart';
          report(
            'ambiguous-options',
            options[j]!.path,
            'warning',
            `options "${options[i]!.id}" and "${options[j]!.id}" cannot be told apart when typed${locale ? ` (${locale})` : ''}: "${a}" and "${b}" ${how}`,
            'change one label or alias so they differ by more than a typo; meanwhile a typed answer that fits both gets a clarifying question',
          );
          break;
        }
      }
    }
  }
}

/** The typed-answer checks of one flow. */
export function lintTypedAnswers(x: LintInput, report: Report): void {
  for (const [id, step] of Object.entries(x.flow.steps)) {
    const kind = kindOf(step);
    // Typed text is read against the callback buttons of menus only: aliases anywhere else are never read.
    if ('keyboard' in step)
      (step.keyboard ?? []).forEach((row, r) => {
        row.forEach((b, c) => {
          if (b.aliases && (!kind.namesButtons || !namedButtons([[b]]).length))
            report(
              'aliases-never-read',
              ['steps', id, 'keyboard', r, c, 'aliases'],
              'warning',
              'aliases of this button are never read: typed answers name the callback buttons of menu steps',
              kind.namesButtons
                ? 'give the button an id, or remove aliases'
                : 'remove aliases, or make the step a menu',
              { key: true },
            );
        });
      });
    const choices = kind.typedChoices?.(step, id) ?? [];
    if (choices.length) lintOptions(x, choices, report);
  }
}
