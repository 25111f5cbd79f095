/**
 * Matching what the bot did against what a transcript expects. Texts match exactly, or by part
 * (`~part`), or by a regular expression (`/re/flags`); keyboards match by their labels, row by row.
 */
import type { BotCall } from './harness.ts';
import type { BotExpectation, MessageExpectation, TextPattern } from './transcript.ts';

/** A call in the shape transcripts talk about. */
export interface ActualAction {
  kind: 'send' | 'edit' | 'answer' | 'upload' | 'delete' | 'action' | 'call' | 'task';
  op: string;
  text?: string;
  keyboard?: string[][];
  notify?: string | null;
  type?: string;
  action?: string;
  args: Record<string, unknown>;
  /** `flow › step` that produced it. */
  step?: string;
  error?: string;
}

type Obj = Record<string, unknown>;

function keyboardOf(message: Obj): string[][] | undefined {
  const attachments = Array.isArray(message.attachments) ? (message.attachments as Obj[]) : [];
  const kb = attachments.find((a) => a.type === 'inline_keyboard') as
    | { payload?: { buttons?: Obj[][] } }
    | undefined;
  return kb?.payload?.buttons?.map((row) => row.map((b) => String(b.text ?? '')));
}

/** Turns a committed call into the transcript's vocabulary. */
export function describeCall(call: BotCall): ActualAction {
  const a = call.args;
  const base = {
    op: call.op,
    args: a,
    ...(call.step ? { step: call.step } : {}),
    ...(call.error ? { error: call.error } : {}),
  };
  const message = (m: Obj) => ({
    ...(typeof m.text === 'string' ? { text: m.text } : {}),
    ...(keyboardOf(m) ? { keyboard: keyboardOf(m)! } : {}),
  });
  if (call.kind === 'task') return { kind: 'task', ...base };
  if (call.kind === 'upload_and_send') {
    const media = a.media as { type?: string } | undefined;
    return {
      kind: 'upload',
      ...base,
      ...(media?.type ? { type: media.type } : {}),
      ...message((a.message as Obj) ?? {}),
    };
  }
  switch (call.op) {
    case 'sendMessage':
      return { kind: 'send', ...base, ...message(a) };
    case 'editMessage':
      return { kind: 'edit', ...base, ...message(a) };
    case 'answerCallback':
      return { kind: 'answer', ...base, notify: typeof a.notification === 'string' ? a.notification : null };
    case 'deleteMessage':
      return { kind: 'delete', ...base };
    case 'sendAction':
      return { kind: 'action', ...base, action: String(a.action) };
    default:
      return { kind: 'call', ...base };
  }
}

/** True when `text` matches the pattern. */
export function textMatches(pattern: TextPattern, text: string | undefined): boolean {
  if (text === undefined) return false;
  if (pattern.startsWith('~')) return text.includes(pattern.slice(1));
  const re = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
  if (re) return new RegExp(re[1]!, re[2]).test(text);
  return text === pattern;
}

function messageProblems(e: MessageExpectation, a: ActualAction): string[] {
  const out: string[] = [];
  if (e.text !== undefined && !textMatches(e.text, a.text)) out.push('text differs');
  if (e.keyboard === 'none' && a.keyboard) out.push('has a keyboard, none expected');
  else if (Array.isArray(e.keyboard)) {
    const rows = a.keyboard ?? [];
    const same =
      rows.length === e.keyboard.length &&
      e.keyboard.every(
        (row, i) => row.length === rows[i]!.length && row.every((p, j) => textMatches(p, rows[i]![j])),
      );
    if (!same) out.push('keyboard differs');
  }
  return out;
}

/** True when every field `expected` names matches `actual` (texts as patterns). */
export function partialMatch(expected: unknown, actual: unknown): boolean {
  if (expected && typeof expected === 'object' && !Array.isArray(expected)) {
    if (!actual || typeof actual !== 'object') return false;
    return Object.entries(expected).every(([k, v]) => partialMatch(v, (actual as Obj)[k]));
  }
  if (typeof expected === 'string' && typeof actual === 'string') return textMatches(expected, actual);
  return JSON.stringify(expected) === JSON.stringify(actual);
}

/** What is wrong with `actual` as an answer to `expected` (empty when it matches). */
export function expectationProblems(expected: BotExpectation, actual: ActualAction | undefined): string[] {
  if (!actual) return ['missing: the bot did not do this'];
  if (expected.kind !== actual.kind) return [`the bot did "${actual.kind}" instead of "${expected.kind}"`];
  const out: string[] = actual.error ? [`the call failed: ${actual.error}`] : [];
  switch (expected.kind) {
    case 'send':
    case 'edit':
      out.push(...messageProblems(expected.message, actual));
      break;
    case 'upload':
      if (expected.type && expected.type !== actual.type)
        out.push(`uploaded: ${actual.type}, expected: ${expected.type}`);
      out.push(...messageProblems(expected.message, actual));
      break;
    case 'answer':
      if (expected.notify === null && actual.notify)
        out.push('shows a notification, a silent answer expected');
      else if (
        typeof expected.notify === 'string' &&
        !textMatches(expected.notify, actual.notify ?? undefined)
      )
        out.push(actual.notify ? 'notification text differs' : 'no notification shown');
      break;
    case 'action':
      if (expected.action !== actual.action) out.push('another action');
      break;
    case 'call':
      if (expected.op !== actual.op) out.push(`called ${actual.op}, not ${expected.op}`);
      else if (expected.args && !partialMatch(expected.args, actual.args)) out.push('arguments differ');
      break;
    case 'task':
      if (expected.task !== actual.op) out.push(`started task ${actual.op}, not ${expected.task}`);
      else if (expected.input && !partialMatch(expected.input, actual.args)) out.push('task input differs');
      break;
  }
  return out;
}
