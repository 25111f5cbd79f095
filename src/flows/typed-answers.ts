/**
 * Typed answers in a compiled flow: what the matcher (understand/) is given at a step — the options'
 * labels in the person's locale and the flow's default one, their aliases, the person's time zone — a menu
 * step's typed text read as a press on one of its buttons, and the clarifying question ("Did you mean: A,
 * B?") with the close options as buttons when an answer fits several.
 */
import type { FlowEvent } from '../engine/step/contract.ts';
import { isTimeZone } from '../engine/step/wall-clock.ts';
import { buttonType, platformButton } from './buttons.ts';
import { type CandidatesFrom, choiceId, choiceIndexOf } from './inputs.ts';
import type { Enqueue, FlowContext, StepEntry } from './machine-context.ts';
import { RENDER_REF, type Rendering } from './render.ts';
import type { Button } from './schema.ts';
import type { Aliases } from './schema-parts.ts';
import { fillTemplate } from './texts.ts';
import { CandidateCache, textsHash } from './understand/candidate-cache.ts';
import { type MatchResult, matchPrepared, type PreparedCandidates } from './understand/match.ts';
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

type Declared = readonly { id: string; text: string; aliases?: Aliases | undefined }[];

/** The callback buttons of a menu step that a typed answer may name (they have an id and report a press). */
export function namedButtons(
  keyboard: readonly (readonly Button[])[] | undefined,
): (Button & { id: string })[] {
  return (keyboard ?? [])
    .flat()
    .filter((b): b is Button & { id: string } => !!b.id && buttonType(b) === 'callback');
}

/**
 * A menu step's transitions for typed text, before its `on_text`: text naming one of its buttons takes
 * that button's route (as its press would); text that fits several asks which one (`clarifyMenu`).
 */
export function typedMenuTransitions(
  key: string,
  keyboard: readonly (readonly Button[])[],
  routeTransition: (key: string, route: string, b: Button) => Record<string, unknown>,
): Record<string, unknown>[] {
  const s = { step: key };
  return [
    ...namedButtons(keyboard).map((b) => ({
      guard: { type: 'typedButton', params: { ...s, id: b.id } },
      ...routeTransition(key, `button:${b.id}`, b),
    })),
    { guard: { type: 'typedUnclear', params: s }, actions: [{ type: 'clarifyMenu', params: s }] },
  ];
}

/** The step's `time_zone:` ("{{tz}}" filled in), else the variable `time_zone`, else UTC. */
function timeZoneOf(e: StepEntry, c: FlowContext): string {
  const s = e.step;
  const declared = s.type === 'input' && s.time_zone ? fillTemplate(s.time_zone, c.vars).trim() : undefined;
  const zone = declared || (typeof c.vars.time_zone === 'string' ? c.vars.time_zone : undefined);
  return zone && isTimeZone(zone) ? zone : 'UTC';
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

/** The close options of a clarifying question as buttons: a menu's, a list's choices, or an input's. */
function clarifyButtons(e: StepEntry, c: FlowContext, ids: readonly string[], say: Rendering['say']) {
  const s = e.step;
  const buttons: { text: string; button: Record<string, unknown> }[] = [];
  for (const id of ids) {
    if (s.type === 'menu') {
      const b = namedButtons(s.keyboard).find((x) => x.id === id);
      const text = b ? say(e, c, b.text) : undefined;
      if (b && text) buttons.push({ text, button: platformButton(b, text) });
    } else if (s.type === 'input' && s.options_from) {
      const text = c.choices?.[choiceIndexOf(id) ?? -1]?.text;
      if (text)
        buttons.push({ text, button: { type: 'callback', text, payload: choiceId(choiceIndexOf(id)!) } });
    } else if (s.type === 'input') {
      const o = s.options?.find((x) => x.id === id);
      const text = o ? say(e, c, o.text) : undefined;
      if (text) buttons.push({ text, button: { type: 'callback', text, payload: id } });
    }
  }
  return buttons;
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
  /** What an input step's typed answer is read against: its declared options or its list's choices. */
  const candidatesFor = (e: StepEntry, c: FlowContext) => (from: CandidatesFrom) => {
    const s = e.step;
    if (from === 'choices') return listedFor(c);
    return declaredFor(e, c, () => (s.type === 'input' ? (s.options ?? []) : []));
  };
  // Several guards read the same typed text at a menu during one transition: match it once.
  const menuAnswers = new WeakMap<object, Map<string, MatchResult>>();
  /** A menu step's typed text against its buttons' labels and aliases. */
  const menuAnswerFor = (e: StepEntry, event: FlowEvent, c: FlowContext): MatchResult => {
    const s = e.step;
    if (s.type !== 'menu' || event.type !== 'message' || !event.text?.trim()) return { kind: 'none' };
    let byStep = menuAnswers.get(event);
    if (!byStep) {
      byStep = new Map();
      menuAnswers.set(event, byStep);
    }
    let m = byStep.get(e.key);
    if (!m) {
      m = matchPrepared(
        event.text,
        declaredFor(e, c, () => namedButtons(s.keyboard)),
      );
      byStep.set(e.key, m);
    }
    return m;
  };
  /** Asks which of the close options was meant: the question, and those options as buttons. */
  const clarify = (enqueue: Enqueue, e: StepEntry, c: FlowContext, ids: readonly string[]) => {
    const buttons = clarifyButtons(e, c, ids, say);
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
  return { labelsFor, timeZoneOf, candidatesFor, menuAnswerFor, clarify };
}
