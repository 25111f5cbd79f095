/**
 * Reading an answer: accept (content kind) → parse → validate (ordered rules, each with its own error).
 * Pure functions of the step, the event and the event's time, so the compiled machine's guards and actions
 * can call them.
 */
import type { FlowEvent } from '../engine/step/contract.ts';
import {
  type Answer,
  isEmail,
  readContact,
  readFile,
  readLocation,
  readNumber,
  readPhone,
  readUrl,
} from './answer-kinds.ts';
import type { BuiltinTextKey } from './builtin-texts.ts';
import type { InputKind } from './kinds/fields.ts';
import type { InputStep } from './kinds/input/schema.ts';
import type { Registry } from './registry.ts';
import { flowRegex, testFlowRegex } from './safe-regex.ts';
import type { Rule } from './schema-parts.ts';
import { readDate, readTime, relativeDay } from './understand/dates.ts';
import { type MatchResult, matchPrepared, type PreparedCandidates } from './understand/match.ts';
import { prepareDeclared, prepareListed } from './understand/options.ts';

export { isEmail, phoneFromVcf } from './answer-kinds.ts';

/** A text to say: a flow text (literal or message id, per the flow), a fixed literal, or a built-in text. */
export type SayText =
  | { flowText: string }
  | { literal: string }
  | { builtin: BuiltinTextKey; args?: Record<string, string | number> };

/**
 * An answer read, or why not. `clarify`: the typed answer fits several options equally well (their ids, or
 * `#n` choices of an `options_from` step): the step asks which one was meant instead of refusing it.
 */
export type InputResult =
  | { ok: true; value: unknown }
  | { ok: false; error: SayText; clarify?: readonly string[] };

/** What reading an answer may look at besides the step and the event. */
export interface AnswerScope {
  vars: Readonly<Record<string, unknown>>;
  locale: string;
  registry: Registry;
  /** The event's time (the engine's clock, virtual in transcripts), for relative dates and validators. */
  now: number;
  /** The options picked so far on a `multi_choice` step. */
  picked?: readonly string[];
  /** The choices an `options_from` step offers (copied when it was entered). */
  choices?: readonly { text: string; value: unknown }[];
  /** A flow text (an option's label) as the person sees it and in the flow's default locale. */
  labels?: (text: string) => string[];
  /** The flow's default locale (aliases of it are read too). */
  defaultLocale?: string;
  /** The person's IANA time zone, for dates and times in words (default UTC). */
  timeZone?: string;
  /**
   * The step's declared `options` or its `options_from` choices as the matcher reads them, prepared once
   * and kept (typed-answers.ts); without it they are prepared for each answer.
   */
  candidates?: (from: CandidatesFrom) => PreparedCandidates;
}

/** What a typed answer is read against: the step's declared `options`, or its `options_from` choices. */
export type CandidatesFrom = 'options' | 'choices';

/** The candidates a typed answer is read against: kept ones (scope.candidates), else prepared now. */
function candidatesOf(from: CandidatesFrom, step: InputStep, scope: AnswerScope): PreparedCandidates {
  if (scope.candidates) return scope.candidates(from);
  return from === 'choices'
    ? prepareListed(scope.choices ?? [], choiceId)
    : prepareDeclared(step.options ?? [], readingOf(step, scope));
}

/** A typed answer that fits several options: parsing goes on with the next kind, else it is asked about. */
class Unclear {
  constructor(readonly ids: readonly string[]) {}
}

/** The value of a match (through `saved`), an `Unclear` for an ambiguous one, else undefined. */
function matched(m: MatchResult, saved: (id: string) => unknown): unknown {
  if (m.kind === 'match') return saved(m.id);
  return m.kind === 'ambiguous' ? new Unclear(m.ids) : undefined;
}

/** A press on the `n`th choice of an `options_from` step: `#n` (short, whatever the list holds). */
export const choiceId = (index: number) => `#${index}`;
/** A press that turns an `options_from` keyboard to page `n`: `#pn`. */
export const pageId = (page: number) => `#p${page}`;
/** The choice index a press names, if it names one. */
export function choiceIndexOf(id: string | undefined): number | undefined {
  const m = id ? /^#(\d+)$/.exec(id) : null;
  return m ? Number(m[1]) : undefined;
}
/** The page a press turns to, if it turns one. */
export function pageOf(id: string | undefined): number | undefined {
  const m = id ? /^#p(\d+)$/.exec(id) : null;
  return m ? Number(m[1]) : undefined;
}

/** The id of the button that ends a multi-select. */
export const MULTI_DONE = '__done';

function answerOf(event: FlowEvent): Answer | undefined {
  if (event.type === 'message') {
    return { text: event.text, attachments: event.attachments as unknown as Record<string, unknown>[] };
  }
  // A command that is not one of the flow's global commands is never an answer (/support is not a name).
  if (event.type === 'command') return { attachments: [], command: true };
  // Choice ids may hold `:` (a time "18:00"): the engine splits `id:value` payloads, so join them back.
  if (event.type === 'button') return { button: pressedId(event), attachments: [] };
  return undefined;
}

export function pressedId(event: FlowEvent & { type: 'button' }): string {
  return event.value === undefined ? event.button : `${event.button}:${event.value}`;
}

/** How typed options are read in this scope: labels as rendered, the person's locale then the default. */
function readingOf(step: InputStep, scope: AnswerScope) {
  const kinds = kindsOf(step);
  return {
    numbersAreValues: kinds.includes('number') || kinds.includes('integer'),
    ...(scope.labels ? { labels: scope.labels } : {}),
    locales: scope.defaultLocale ? [scope.locale, scope.defaultLocale] : [scope.locale],
  };
}

/** A `multi_choice` answer: Done with the picked options, or typed text naming one or several of them. */
function readMultiChoice(step: InputStep, a: Answer, text: string | undefined, scope: AnswerScope): unknown {
  const options = step.options ?? [];
  if (a.button === MULTI_DONE) {
    const picked = scope.picked ?? [];
    return picked.length ? options.filter((o) => picked.includes(o.id)).map((o) => o.id) : undefined;
  }
  if (!text) return undefined;
  const reading = readingOf(step, scope);
  const prepared = candidatesOf('options', step, scope);
  const whole = matchPrepared(text, prepared, reading);
  if (whole.kind === 'match') return [whole.id];
  // "window, cake", "1 and 3", "окно и торт": each part names one option (by id, label, alias, typo).
  const parts = text
    .split(/\s*[,;+&]\s*|\s+(?:and|и)\s+/iu)
    .map((x) => x.trim())
    .filter(Boolean);
  const ids = parts
    .map((p) => matchPrepared(p, prepared, reading))
    .map((m) => (m.kind === 'match' ? m.id : undefined));
  if (!ids.length || ids.some((id) => id === undefined)) return undefined;
  return options.filter((o) => ids.includes(o.id)).map((o) => o.id);
}

/** A `choice` answer: a pressed option (or choice of an `options_from` list), or typed text naming one. */
function readChoice(step: InputStep, a: Answer, text: string | undefined, scope: AnswerScope): unknown {
  if (step.options_from) {
    const choices = scope.choices ?? [];
    const index = choiceIndexOf(a.button);
    if (index !== undefined) return choices[index]?.value;
    if (!text) return undefined;
    return matched(
      matchPrepared(text, candidatesOf('choices', step, scope), readingOf(step, scope)),
      (id) => choices[choiceIndexOf(id)!]?.value,
    );
  }
  const options = step.options ?? [];
  if (a.button) return options.find((o) => o.id === a.button)?.id;
  if (!text) return undefined;
  return matched(
    matchPrepared(text, candidatesOf('options', step, scope), readingOf(step, scope)),
    (id) => id,
  );
}

/** The answer read as one kind of input, or undefined when it is not one. */
function parseOne(kind: InputKind, step: InputStep, a: Answer, scope: AnswerScope): unknown {
  const text = a.text?.trim();
  const att = a.attachments;
  switch (kind) {
    case 'text':
      return text ? text : undefined;
    case 'number':
      return readNumber(text);
    case 'integer':
      return text && /^[-+]?\d{1,15}$/.test(text) ? Number(text) : undefined;
    case 'time':
      return text ? readTime(text, { now: scope.now, timeZone: scope.timeZone }) : undefined;
    case 'url':
      return readUrl(text);
    case 'multi_choice':
      return readMultiChoice(step, a, text, scope);
    case 'email':
      return text && isEmail(text) ? text.toLowerCase() : undefined;
    case 'phone':
      return readPhone(text, att);
    case 'date':
      return text ? readDate(text, { now: scope.now, timeZone: scope.timeZone }) : undefined;
    case 'choice':
      return readChoice(step, a, text, scope);
    case 'contact':
      return readContact(att);
    case 'location':
      return readLocation(att);
    case 'photo':
    case 'file':
      return readFile(kind, att);
  }
}

/** The kinds a step accepts, in order. */
export function kindsOf(step: InputStep): InputKind[] {
  return Array.isArray(step.input) ? step.input : [step.input];
}

/** True when the event is an answer this step reads (texts, attachments, and its choice buttons). */
export function isAnswerEvent(step: InputStep, event: FlowEvent): boolean {
  if (event.type === 'message' || event.type === 'command') return true;
  if (event.type !== 'button') return false;
  const id = pressedId(event);
  const kinds = kindsOf(step);
  if (kinds.includes('multi_choice')) return id === MULTI_DONE;
  if (step.options_from) return kinds.includes('choice') && choiceIndexOf(id) !== undefined;
  return kinds.includes('choice') && !!step.options?.some((o) => o.id === id);
}

/** The option a press toggles on a `multi_choice` step, if it is one. */
export function toggledOption(step: InputStep, event: FlowEvent): string | undefined {
  if (event.type !== 'button' || !kindsOf(step).includes('multi_choice')) return undefined;
  const id = pressedId(event);
  return step.options?.some((o) => o.id === id) ? id : undefined;
}

/** Kinds whose answer is typed text: `length` and `regex` rules test that text. */
const TEXT_KINDS = new Set<InputKind>(['text', 'number', 'integer', 'email', 'phone', 'date', 'time', 'url']);

/** Parses and validates the answer in `event` for an input step. */
export function readAnswer(step: InputStep, event: FlowEvent, scope: AnswerScope): InputResult {
  const a = answerOf(event);
  const kinds = kindsOf(step);
  const fail = (): InputResult => ({
    ok: false,
    error: step.error ? { flowText: step.error } : { builtin: `error-${kinds[0]!}` as BuiltinTextKey },
  });
  if (!a || a.command) return fail();
  let value: unknown;
  let kind: InputKind | undefined;
  let unclear: Unclear | undefined;
  for (const k of kinds) {
    value = parseOne(k, step, a, scope);
    kind = k;
    if (value instanceof Unclear) {
      unclear ??= value;
      value = undefined;
    }
    if (value !== undefined) break;
  }
  if (value === undefined && unclear)
    return { ok: false, error: { builtin: 'clarify' }, clarify: unclear.ids };
  if (value === undefined || !kind) return fail();
  // Rules about the typed text (length, regex) test what the person typed, not the parsed value.
  const typed = TEXT_KINDS.has(kind) ? a.text?.trim() : undefined;
  for (const rule of step.validate ?? []) {
    const verdict = checkRule(rule, value, typed, scope);
    if (verdict !== true) return { ok: false, error: verdict };
  }
  return { ok: true, value };
}

/** The built-in rule names; anything else must be a registered validator. */
export const BUILTIN_RULES = new Set(['length', 'range', 'regex', 'one_of', 'integer']);

/** Which input kinds each built-in rule can pass for; `botflow check` refuses other pairs. */
export const RULE_KINDS: Record<string, readonly InputKind[]> = {
  length: ['text', 'number', 'integer', 'email', 'phone', 'date', 'time', 'url', 'choice'],
  regex: ['text', 'number', 'integer', 'email', 'phone', 'date', 'time', 'url', 'choice'],
  range: ['number', 'integer', 'date', 'time'],
  one_of: ['text', 'number', 'integer', 'email', 'phone', 'date', 'time', 'url', 'choice'],
  integer: ['number', 'integer'],
};

function checkRule(
  rule: Rule,
  value: unknown,
  typed: string | undefined,
  scope: AnswerScope,
): true | SayText {
  const err = (key: BuiltinTextKey, args: Record<string, string | number> = {}): SayText =>
    rule.error ? { flowText: rule.error } : { builtin: key, args };
  const bound = (x: number | string | undefined): number | string | undefined =>
    typeof x === 'string' ? (relativeDay(x, { now: scope.now, timeZone: scope.timeZone }) ?? x) : x;
  const text = typed ?? (typeof value === 'string' ? value : undefined);
  switch (rule.rule) {
    case 'length': {
      const n = text === undefined ? 0 : [...text].length;
      const min = Number(rule.min ?? 0);
      const max = Number(rule.max ?? Number.POSITIVE_INFINITY);
      return n >= min && n <= max ? true : err('rule-length', { min, max: rule.max ?? '…' });
    }
    case 'range': {
      const v = typeof value === 'number' || typeof value === 'string' ? value : undefined;
      const lo = bound(rule.min);
      const hi = bound(rule.max);
      const okLo = lo === undefined || (v !== undefined && typeof v === typeof lo && v >= lo);
      const okHi = hi === undefined || (v !== undefined && typeof v === typeof hi && v <= hi);
      return okLo && okHi ? true : err('rule-range', { min: lo ?? '…', max: hi ?? '…' });
    }
    case 'regex':
      return text !== undefined && testFlowRegex(flowRegex(rule.pattern ?? '', 'u'), text)
        ? true
        : err('rule-regex');
    case 'one_of':
      return (rule.values ?? []).some((x) => x === value) ? true : err('rule-one_of');
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? true : err('error-integer');
    default: {
      const validator = scope.registry.validators[rule.rule];
      if (!validator) return err('rule-validator-missing', { name: rule.rule });
      const params = rule.params ?? {};
      const out = validator(value, { vars: scope.vars, locale: scope.locale, params, now: scope.now });
      if (out === true) return true;
      return rule.error ? { flowText: rule.error } : { flowText: out };
    }
  }
}
