/** The harness's small parts: a virtual clock, and a turn's calls with its tasks put in order. */
import type { Clock } from '../engine/step/clock.ts';
import type { OutboxEntry } from '../store/history.ts';
import type { TaskRow } from '../store/tasks.ts';

export type Collected = Omit<OutboxEntry, 'id'>;

/** The turn's calls with its tasks put in: a step's tasks come after its calls (prompt sent, then task started). */
export function withTasks(rows: readonly Collected[], tasks: readonly TaskRow[]): Collected[] {
  const out = [...rows];
  for (const t of tasks) {
    let at = out.length;
    while (at > 0 && out[at - 1]!.conversationKey === t.conversationKey && out[at - 1]!.revision > t.revision)
      at--;
    out.splice(at, 0, {
      conversationKey: t.conversationKey,
      revision: t.revision,
      kind: 'task',
      op: t.name,
      args: t.input,
      status: t.status,
      error: null,
    });
  }
  return out;
}

/** A virtual clock: time moves only when the harness says so; engine timers never fire on their own. */
export function virtualClock(read: () => number): Clock {
  return { now: read, setTimer: () => undefined, clearTimer: () => undefined };
}
