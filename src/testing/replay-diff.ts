/**
 * Comparing the calls of one conversation: recorded vs made now. Calls are compared by operation and
 * arguments, with what legitimately changes between runs left out (signed button payloads, upload
 * tokens, message ids numbered by first appearance). The output is a diff with a line of context.
 */

import type { CallRecord } from '../runtime/recording.ts';
import { describeCall } from './match.ts';
import { describeActual } from './report.ts';

/** The differences of one conversation. */
export interface ConversationDiff {
  conversation: string;
  /** Recorded calls that are not made any more. */
  removed: number;
  /** Calls made now that were not recorded. */
  added: number;
  /** The diff to print. */
  text: string;
}

type Obj = Record<string, unknown>;

/** The comparable form of a call's arguments. */
function normalize(args: unknown, mids: Map<string, string>): unknown {
  if (Array.isArray(args)) return args.map((a) => normalize(a, mids));
  if (!args || typeof args !== 'object') return args;
  const o = args as Obj;
  const out: Obj = {};
  for (const key of Object.keys(o).sort()) {
    const v = o[key];
    if (v === null || v === undefined) continue;
    if ((key === 'payload' && o.type === 'callback') || key === 'token') out[key] = '…';
    else if ((key === 'message_id' || key === 'mid') && typeof v === 'string') {
      if (!mids.has(v)) mids.set(v, `message#${mids.size + 1}`);
      out[key] = mids.get(v);
    } else out[key] = normalize(v, mids);
  }
  return out;
}

function line(c: CallRecord): string {
  if (c.op.startsWith('task '))
    return `${'task'.padEnd(14)} ${c.op.slice(5)} ${JSON.stringify(c.args)}${c.error ? `  (failed: ${c.error.code})` : ''}`;
  const what = describeActual(
    describeCall({ op: c.op, kind: 'api', args: c.args, status: 'done', conversationKey: '' }),
  );
  return `${c.op.padEnd(14)} ${what}${c.error ? `  (failed: ${c.error.code})` : ''}`;
}

/**
 * A call with what led to it: `cause`, the index of the person's last update in the conversation before it
 * (the same on both sides: a replay sends the recorded updates in order), and on the replayed side `step`,
 * the step the conversation was at when the call was made.
 */
export type AnnotatedCall = CallRecord & { cause?: number; step?: string };

/** Diffs one conversation's calls; undefined when they are the same. `inputs` describes updates by index. */
export function diffCalls(
  conversation: string,
  recorded: AnnotatedCall[],
  now: AnnotatedCall[],
  inputs: readonly string[] = [],
): ConversationDiff | undefined {
  const mr = new Map<string, string>();
  const mn = new Map<string, string>();
  const a = recorded.map((c) => JSON.stringify([c.op, normalize(c.args, mr)]));
  const b = now.map((c) => JSON.stringify([c.op, normalize(c.args, mn)]));
  // Longest common subsequence, then walk it to list kept, removed and added calls in order.
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  type Op = { sign: ' ' | '-' | '+'; text: string; cause?: number; step?: string };
  const op = (sign: Op['sign'], call: AnnotatedCall, step = call.step): Op => ({
    sign,
    text: line(call),
    ...(call.cause !== undefined ? { cause: call.cause } : {}),
    ...(step !== undefined ? { step } : {}),
  });
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push(op(' ', recorded[i++]!, now[j++]!.step));
    } else if (j < b.length && (i >= a.length || lcs[i]![j + 1]! > lcs[i + 1]![j]!)) {
      ops.push(op('+', now[j++]!));
    } else ops.push(op('-', recorded[i++]!));
  }
  const removed = ops.filter((o) => o.sign === '-').length;
  const added = ops.filter((o) => o.sign === '+').length;
  if (!removed && !added) return undefined;
  // Changed calls, each with the unchanged call just before and after it as context.
  const near = (k: number) => ops[k] !== undefined && ops[k]!.sign !== ' ';
  const shown = ops.filter((o, k) => o.sign !== ' ' || near(k - 1) || near(k + 1));
  // Each group of calls under what the person did that led to them, and the step they came from now.
  const out = [`${conversation}: ${removed} recorded call(s) no longer made, ${added} new`];
  let group: string | undefined;
  for (const [k, o] of shown.entries()) {
    const step = o.step ?? shown.slice(k).find((x) => x.cause === o.cause && x.step)?.step;
    const heading =
      o.cause !== undefined && inputs[o.cause] !== undefined
        ? `  after ${inputs[o.cause]}${step ? `, at step ${step}` : ''}:`
        : undefined;
    if (heading && heading !== group) out.push(heading);
    group = heading ?? group;
    out.push(`  ${o.sign} ${o.text}`);
  }
  return { conversation, removed, added, text: out.join('\n') };
}
