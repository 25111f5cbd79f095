/**
 * Where the failover benchmark's time goes (failover.bench.ts), from the platform's request log: after each
 * fault how long until the next long poll and the next message went out, the longest pause in either, and
 * what the requests were in the seconds a backlog existed (polls included): the causes behind the latency
 * figures.
 */
import type { LoggedRequest } from '../../src/sandbox/request-log.ts';
import { backlogSeconds, type Monitor } from './failover-watch.ts';

/** Operations that show a person something (a send or an edit). */
const SHOWN = new Set(['sendMessage', 'editMessage', 'sendComment', 'editComment']);

/** The first time in `times` (sorted) at or after `from`, less `from`; null when none before `to`. */
function firstAfter(times: readonly number[], from: number, to: number): number | null {
  const t = times.find((x) => x >= from);
  return t !== undefined && t < to ? Math.round(t - from) : null;
}

/** The longest pause between successive `times` inside [from, to) (the edges count). */
function longestPause(times: readonly number[], from: number, to: number): number {
  let last = from;
  let longest = 0;
  for (const t of times) {
    if (t < from) continue;
    if (t >= to) break;
    longest = Math.max(longest, t - last);
    last = t;
  }
  return Math.round(Math.max(longest, to - last));
}

/** Per fault (kill or SIGTERM): the next poll, the next message shown, and the longest pauses until the next fault. */
export function faultGaps(
  requests: readonly LoggedRequest[],
  log: { kills: { at: number }[]; terms: { at: number }[]; rollEndAt: number },
) {
  const ok = requests.filter((r) => r.status !== 429);
  const polls = ok.filter((r) => r.op === 'getUpdates').map((r) => r.time);
  const shown = ok.filter((r) => SHOWN.has(r.op ?? '')).map((r) => r.time);
  const faults = [
    ...log.kills.map((k) => ({ kind: 'kill', at: k.at })),
    ...log.terms.map((t) => ({ kind: 'term', at: t.at })),
  ];
  return faults.map((f, i) => {
    const to = faults[i + 1]?.at ?? log.rollEndAt + 10_000;
    return {
      kind: f.kind,
      nextPollMs: firstAfter(polls, f.at, to),
      nextShownMs: firstAfter(shown, f.at, to),
      pollPauseMs: polls.length ? longestPause(polls, f.at, to) : null,
      shownPauseMs: longestPause(shown, f.at, to),
    };
  });
}

/** Requests per second by operation in the seconds a backlog existed under one dispatcher (429s left out). */
export function backlogMix(monitor: Monitor, requests: readonly LoggedRequest[]) {
  const counts: Record<string, number> = {};
  const seconds = backlogSeconds(monitor.samples);
  for (const { at } of seconds)
    for (const r of requests)
      if (r.time >= at && r.time < at + 1000 && r.status !== 429)
        counts[r.op ?? r.path] = (counts[r.op ?? r.path] ?? 0) + 1;
  const perSecond: Record<string, number> = {};
  for (const [op, n] of Object.entries(counts))
    perSecond[op] = Number((n / (seconds.length || 1)).toFixed(2));
  return { seconds: seconds.length, perSecond };
}
