/**
 * Typed answers in a compiled flow: what the matcher (understand/) is given at a step — the options'
 * labels in the person's locale and the flow's default one, their aliases, kept once per step or list —
 * and the clarifying question ("Did you mean: A, B?") with the close options as buttons when an answer fits
 * several. What a kind matches typed text against (an input's options, a menu's buttons) is its own
 * (kinds/input/answers.ts, kinds/menu/answers.ts).
 */
import { buttonType } from './buttons.ts';
import { choiceId } from './inputs.ts';
import type { ClarifyButton, Declared, TypedKit } from './kinds/contract.ts';
import type { Button } from './kinds/fields.ts';
import type { Enqueue, FlowContext, StepEntry } from './machine-context.ts';
import { RENDER_REF, type Rendering } from './render.ts';
import { CandidateCache, textsHash } from './understand/candidate-cache.ts';
import type { PreparedCandidates } from './understand/match.ts';
import { prepareDeclared, prepareListed } from './understand/options.ts';

/**
 * Candidates prepared once for every compiled flow: a step's declared options under the flow's serial (one
 * per compiled flow version), the step and the locales read; an `options_from` list under the hash of its
 * texts, which are kept and compared (two lists of one hash never share). A step whose labels change with
 * the variables (`{{name}}`, a Fluent `{ $name }`) is kept without candidates: read for each answer.
 * Bounded (candidate-cache.ts: 1,000 entries, 50,000 names).
 */
const kept = new CandidateCache<{ size: number; prepared?: PreparedCandidates; texts?: readonly string[] }>();
let compiledFlows = 0;
/** The hash of each `options_from` list a context holds (the same array while the conversation is loaded). */
const listHashes = new WeakMap<object, string>();

/** The callback buttons of a menu step that a typed answer may name (they have an id and report a press). */
export function namedButtons(
  keyboard: readonly (readonly Button[])[] | undefined,
): (Button & { id: string })[] {
  return (keyboard ?? [])
    .flat()
    .filter((b): b is Button & { id: string } => !!b.id && buttonType(b) === 'callback');
}

/** An `options_from` step's choices read once per list (by the hash of their texts). */
function listedFor(c: FlowContext): PreparedCandidates {
  const choices = c.choices ?? [];
  const texts = choices.map((x) => x.text);
  let hash = listHashes.get(choices);
  if (!hash) {
    hash = textsHash(texts);
    listHashes.set(choices, hash);
  }
  const build = () => prepareListed(choices, choiceId);
  const found = kept.get(`list\0${hash}`, () => {
    const prepared = build();
    return { size: prepared.size, prepared, texts };
  });
  const same = found.texts?.length === texts.length && found.texts.every((t, i) => t === texts[i]);
  return same && found.prepared ? found.prepared : build();
}

/** Builds the typed-answer helpers of one compiled flow. */
export function typedAnswers(r: Pick<Rendering, 'localeOf' | 'say' | 'effect'>, usesEdit: boolean) {
  const { localeOf, say, effect } = r;
  const flowKey = ++compiledFlows;
  /** A flow text as the person sees it, and in the flow's default locale (both are matched). */
  const labelsFor = (e: StepEntry, c: FlowContext) => (text: string) => {
    const mine = say(e, c, text);
    const fallback = e.flow.i18n?.default_locale;
    if (!fallback || fallback === localeOf(e, c)) return [mine];
    return [mine, e.text.render(text, c.vars, fallback)];
  };
  const readingOf = (e: StepEntry, c: FlowContext) => {
    const fallback = e.flow.i18n?.default_locale;
    return { labels: labelsFor(e, c), locales: fallback ? [localeOf(e, c), fallback] : [localeOf(e, c)] };
  };
  /** Declared options read once per step and locales, unless a label changes with the variables. */
  const declaredFor = (e: StepEntry, c: FlowContext, options: () => Declared): PreparedCandidates => {
    const reading = readingOf(e, c);
    const build = () => prepareDeclared(options(), reading);
    const constant = (text: string) => reading.locales.every((l) => e.text.constant?.(text, l) === true);
    const found = kept.get(`${flowKey}\0${e.key}\0${reading.locales.join('\0')}`, () => {
      if (!options().every((o) => constant(o.text))) return { size: 1 };
      const prepared = build();
      return { size: prepared.size, prepared };
    });
    return found.prepared ?? build();
  };
  /** Asks which of the close options was meant: the question, and those options as buttons. */
  const clarify = (enqueue: Enqueue, e: StepEntry, c: FlowContext, buttons: readonly ClarifyButton[]) => {
    const text = say(e, c, { builtin: 'clarify', args: { options: buttons.map((b) => b.text).join(', ') } });
    effect(enqueue, {
      kind: 'api',
      op: 'sendMessage',
      args: {
        text,
        attachments: [{ type: 'inline_keyboard', payload: { buttons: buttons.map((b) => [b.button]) } }],
        format: e.format,
      },
      ...(usesEdit ? { ref: RENDER_REF } : {}),
    });
  };
  return { labelsFor, declaredFor, listedFor, clarify } satisfies TypedKit;
}
