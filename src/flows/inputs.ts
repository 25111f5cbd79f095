/**
 * Reading an answer: accept (content kind) → parse → validate (ordered rules, each with its own error).
 * Pure functions of the step and the event, so the compiled machine's guards and actions can call them.
 */
import type { FlowEvent } from '../engine/contract.ts';
import type { BuiltinKey } from './builtin-texts.ts';
import type { Registry } from './registry.ts';
import { flowRegex, testFlowRegex } from './safe-regex.ts';
import type { InputKind, InputStep, Rule } from './schema.ts';

/** A text to say: a flow text (literal or message id, per the flow), a fixed literal, or a built-in text. */
export type SayText =
  | { flowText: string }
  | { literal: string }
  | { builtin: BuiltinKey; args?: Record<string, string> };

export type InputResult = { ok: true; value: unknown } | { ok: false; error: SayText };

/** The built-in text that says what an answer of each kind looks like (builtin-texts.ts). */
const DEFAULT_ERRORS = (kind: InputKind): BuiltinKey => `error-${kind}`;

type Answer = { text?: string; attachments: Record<string, unknown>[]; button?: string };

function answerOf(event: FlowEvent): Answer | undefined {
  if (event.type === 'message') {
    return { text: event.text, attachments: event.attachments as unknown as Record<string, unknown>[] };
  }
  // A command that is not one of the flow's global commands is never an answer (/support is not a name).
  if (event.type === 'command') return { attachments: [] };
  if (event.type === 'button') return { button: event.button, attachments: [] };
  return undefined;
}

/**
 * `local@domain.tld`: one @, no whitespace, a dot in the domain followed by at least two characters
 * (what `^[^\s@]+@[^\s@]+\.[^\s@]{2,}$` accepts, up to 320 characters).
 * Checked in one pass, without a regular expression (the former pattern backtracked quadratically).
 */
export function isEmail(text: string): boolean {
  if (text.length > 320) return false; // RFC 5321's limit
  const at = text.indexOf('@');
  if (at < 1 || at !== text.lastIndexOf('@')) return false;
  if (/\s/u.test(text)) return false;
  // A dot after the domain's first character, with two or more characters after it.
  const domain = text.slice(at + 1);
  const dot = domain.indexOf('.', 1);
  return dot > 0 && domain.length - dot - 1 >= 2;
}

function parseDate(text: string): string | undefined {
  const m =
    /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text) ?? /^(\d{1,2})[./](\d{1,2})[./](\d{4})$/.exec(text)?.reverse();
  if (!m) return undefined;
  const [y, mo, d] = text.includes('-') ? [m[1], m[2], m[3]] : [m[0], m[1], m[2]];
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d)) return undefined;
  return date.toISOString().slice(0, 10);
}

/** The phone number of a shared contact's vCard: the first TEL line's value, spaces and brackets removed. */
export function phoneFromVcf(vcf: unknown): string | undefined {
  if (typeof vcf !== 'string') return undefined;
  // Line by line: the first TEL property's value, its leading phone characters (linear in the card's size).
  for (const line of vcf.split(/\r?\n/)) {
    if (line.slice(0, 3).toUpperCase() !== 'TEL') continue;
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const value = /^[+\d][\d\s()-]*/.exec(line.slice(colon + 1))?.[0];
    if (value && value.length > 1) return value.replace(/[\s()-]/g, '');
  }
  return undefined;
}

function parseOne(kind: InputKind, step: InputStep, a: Answer): unknown {
  const text = a.text?.trim();
  const att = a.attachments;
  switch (kind) {
    case 'text':
      return text ? text : undefined;
    case 'number': {
      if (!text || !/^[-+]?\d+([.,]\d+)?$/.test(text)) return undefined;
      return Number(text.replace(',', '.'));
    }
    case 'integer': {
      if (!text || !/^[-+]?\d+$/.test(text)) return undefined; // "2,5" or "2.5" is no whole number
      const n = Number(text);
      return Number.isSafeInteger(n) ? n : undefined;
    }
    case 'email':
      return text && isEmail(text) ? text.toLowerCase() : undefined;
    case 'phone': {
      const contact = att.find((x) => x.type === 'contact') as
        | { payload?: { vcf_info?: string } }
        | undefined;
      const raw = contact ? phoneFromVcf(contact.payload?.vcf_info) : text;
      if (!raw || !/^\+?[\d\s()-]{7,20}$/.test(raw)) return undefined;
      const digits = raw.replace(/\D/g, '');
      return digits.length >= 7 && digits.length <= 15 ? `+${digits}` : undefined;
    }
    case 'date':
      return text ? parseDate(text) : undefined;
    case 'choice': {
      const options = step.options ?? [];
      if (a.button) return options.find((o) => o.id === a.button)?.id;
      const t = text?.toLowerCase();
      return t ? options.find((o) => o.id.toLowerCase() === t)?.id : undefined;
    }
    case 'contact': {
      const c = att.find((x) => x.type === 'contact') as
        | {
            payload?: {
              vcf_info?: string;
              max_info?: { user_id?: number; name?: string; first_name?: string };
            };
          }
        | undefined;
      if (!c) return undefined;
      const info = c.payload?.max_info;
      const name = info?.first_name ?? info?.name ?? /FN:(.+)/.exec(c.payload?.vcf_info ?? '')?.[1]?.trim();
      return {
        name: name ?? null,
        phone: phoneFromVcf(c.payload?.vcf_info) ?? null,
        user_id: info?.user_id ?? null,
      };
    }
    case 'location': {
      const l = att.find((x) => x.type === 'location') as { latitude: number; longitude: number } | undefined;
      return l ? { latitude: l.latitude, longitude: l.longitude } : undefined;
    }
    case 'photo':
    case 'file': {
      const want = kind === 'photo' ? 'image' : 'file';
      const f = att.find((x) => x.type === want) as
        | { payload?: { url?: string; token?: string }; filename?: string; size?: number }
        | undefined;
      if (!f) return undefined;
      return {
        kind,
        url: f.payload?.url ?? null,
        token: f.payload?.token ?? null,
        ...(kind === 'file' ? { filename: f.filename ?? null, size: f.size ?? null } : {}),
      };
    }
  }
}

/** The kinds a step accepts, in order. */
export function kindsOf(step: InputStep): InputKind[] {
  return Array.isArray(step.input) ? step.input : [step.input];
}

/** True when the event is an answer this step reads (texts, attachments, and its choice buttons). */
export function isAnswerEvent(step: InputStep, event: FlowEvent): boolean {
  // A command is never an answer: /support is not a name (the flow refuses it with a word on how to go on).
  if (event.type === 'message') return true;
  return (
    event.type === 'button' &&
    kindsOf(step).includes('choice') &&
    !!step.options?.some((o) => o.id === event.button)
  );
}

/** Parses and validates the answer in `event` for an input step. */
export function readAnswer(
  step: InputStep,
  event: FlowEvent,
  vars: Readonly<Record<string, unknown>>,
  locale: string,
  registry: Registry,
): InputResult {
  const now = typeof event.meta?.now === 'number' ? event.meta.now : Date.now();
  const a = answerOf(event);
  const kinds = kindsOf(step);
  const fail = (): InputResult => ({
    ok: false,
    error: step.error ? { flowText: step.error } : { builtin: DEFAULT_ERRORS(kinds[0]!) },
  });
  if (!a) return fail();
  let value: unknown;
  for (const kind of kinds) {
    value = parseOne(kind, step, a);
    if (value !== undefined) break;
  }
  if (value === undefined) return fail();
  for (const rule of step.validate ?? []) {
    // Text rules (length, regex) read what the person typed, whatever the answer parsed to.
    const subject = TEXT_RULES.has(rule.rule) && typeof a.text === 'string' ? a.text.trim() : value;
    const verdict = checkRule(rule, subject, vars, locale, registry, now);
    if (verdict !== true) return { ok: false, error: verdict };
  }
  return { ok: true, value };
}

/** The built-in rule names; anything else must be a registered validator. */
export const BUILTIN_RULES = new Set(['length', 'range', 'regex', 'one_of']);

/** Rules that test the text the person typed (for a number, "007" has 3 characters). */
const TEXT_RULES = new Set(['length', 'regex']);

/** Which input kinds each built-in rule can pass for; `botflow check` refuses other pairs. */
export const RULE_KINDS: Record<string, readonly InputKind[]> = {
  length: ['text', 'number', 'integer', 'email', 'phone', 'date', 'choice'],
  regex: ['text', 'number', 'integer', 'email', 'phone', 'date', 'choice'],
  range: ['number', 'integer'],
  one_of: ['text', 'number', 'integer', 'email', 'phone', 'date', 'choice'],
};

function checkRule(
  rule: Rule,
  value: unknown,
  vars: Readonly<Record<string, unknown>>,
  locale: string,
  registry: Registry,
  now: number,
): true | SayText {
  const err = (literal: string): SayText => (rule.error ? { flowText: rule.error } : { literal });
  const num = (x: unknown) => (typeof x === 'number' ? x : typeof x === 'string' ? x : undefined);
  switch (rule.rule) {
    case 'length': {
      const n = typeof value === 'string' ? [...value].length : 0;
      const min = Number(rule.min ?? 0);
      const max = Number(rule.max ?? Number.POSITIVE_INFINITY);
      return n >= min && n <= max ? true : err(`Please use ${min} to ${max} characters.`);
    }
    case 'range': {
      const v = num(value);
      const lo = rule.min;
      const hi = rule.max;
      const okLo = lo === undefined || (v !== undefined && v >= lo);
      const okHi = hi === undefined || (v !== undefined && v <= hi);
      return okLo && okHi ? true : err(`Please send a value from ${lo ?? '…'} to ${hi ?? '…'}.`);
    }
    case 'regex':
      return typeof value === 'string' && testFlowRegex(flowRegex(rule.pattern ?? '', 'u'), value)
        ? true
        : err('That does not look right, please try again.');
    case 'one_of':
      return (rule.values ?? []).some((x) => x === value)
        ? true
        : err('Please choose one of the offered values.');
    default: {
      const validator = registry.validators[rule.rule];
      if (!validator) return err(`No validator named "${rule.rule}" is registered.`);
      const out = validator(value, { vars, locale, params: rule.params ?? {}, now });
      if (out === true) return true;
      return rule.error ? { flowText: rule.error } : { flowText: out };
    }
  }
}
