/** The durable timers of a step (its reminders and idle timeout), armed on entry and cancelled on exit. */
import type { Effect } from '../engine/step/contract.ts';
import { durationMs } from '../engine/step/durations.ts';
import type { Enqueue, StepEntry } from './machine-context.ts';

/** A step's timers: `timersOf` lists them (name and delay), `arm` arms them all. */
export function stepTimers(effect: (enqueue: Enqueue, params: Effect) => void) {
  const timerCache = new Map<string, { name: string; delayMs: number }[]>();
  const timersOf = (e: StepEntry) => {
    let cached = timerCache.get(e.key);
    if (!cached) {
      cached = computeTimers(e);
      timerCache.set(e.key, cached);
    }
    return cached;
  };
  const computeTimers = (e: StepEntry) => {
    const s = e.step;
    if (!('remind' in s) && !('idle' in s)) return [];
    const out: { name: string; delayMs: number }[] = [];
    if ('remind' in s)
      for (const [i, r] of (s.remind ?? []).entries()) {
        out.push({ name: `${e.key}:remind:${i}`, delayMs: durationMs(r.after) });
      }
    if ('idle' in s && s.idle) out.push({ name: `${e.key}:idle`, delayMs: durationMs(s.idle.after) });
    return out;
  };
  const arm = (e: StepEntry, enqueue: Enqueue) => {
    for (const t of timersOf(e)) effect(enqueue, { kind: 'timer.arm', ...t });
  };
  return { timersOf, arm };
}
