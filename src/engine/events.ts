/**
 * `engine.events`: external events into the inbox (`bot.events.send`, and what `POST /events` and
 * `botflow event send` call). An event is checked before anything is stored (its shape, that some flow
 * or the registry knows its name, its payload against their schemas), so the sender learns at once what
 * is wrong (`EventInvalidError`, BOTFLOW_EVENT_INVALID); an accepted event is durable when `send` resolves
 * and is handled in the conversation's order, after what came before it.
 */
import {
  EventInvalidError,
  type EventReceipt,
  type EventSender,
  eventEntry,
  eventProblems,
  type OutsideEvent,
} from '../inbox/event-entry.ts';
import type { ConversationKeyStrategy } from '../inbox/keys.ts';
import type { EngineStore } from '../store/ports/engine.ts';
import type { EngineListeners } from './listeners.ts';
import type { FlowDefinition } from './step/contract.ts';
import type { FlowSet } from './step/flow-set.ts';

/** What the engine offers for external events. */
export interface EngineEventSender extends EventSender {
  /**
   * What is wrong with an event of `name` carrying `payload` (no flow and no registry knows the name, the
   * payload breaks a schema); empty when it would be accepted. The doors share this rule.
   */
  check(name: string, payload: unknown): string[];
  /** The event names the running flows know (triggers, `on_event`, `events:`, the registry), sorted. */
  names(): string[];
}

/** What `engineEvents` needs. */
export interface EngineEventsOptions {
  store: Pick<EngineStore, 'append'>;
  flows: FlowSet;
  now: () => number;
  /** How addresses become conversation keys: the `conversationKey` setting (default `user-in-chat`). */
  strategy?: ConversationKeyStrategy | undefined;
  /** Told of each event stored (not a duplicate): `accepted` (a recording records it). */
  events: Pick<EngineListeners, 'emit'>;
  /** Wakes the engine: the event is handled at once. */
  wake(): void;
}

/** The closest of `names` to `name` by edit distance, when it is close enough to be a typo. */
export function closestName(name: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of names) {
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The event names `flows` know (triggers, `on_event`, `events:`, the registry), sorted. */
export function eventNames(flows: readonly FlowDefinition[]): string[] {
  return [...new Set(flows.flatMap((f) => Object.keys(f.events ?? {})))].sort();
}

/**
 * What is wrong with an event of `name` carrying `payload` for `flows`: no flow knows the name (with a
 * did-you-mean), or the payload breaks a schema; empty when it would be accepted. Every door's rule
 * (`engine.events`, `botflow event send`).
 */
export function eventCheck(flows: readonly FlowDefinition[], name: string, payload: unknown): string[] {
  const declarations = flows.map((f) => f.events?.[name]).filter((d) => d !== undefined);
  if (declarations.length === 0) {
    const known = eventNames(flows);
    const near = closestName(name, known);
    return [
      `event "${name}": no flow and no registry knows it` +
        (near ? ` (did you mean "${near}"?)` : known.length ? ` (known: ${known.join(', ')})` : ''),
    ];
  }
  const problems = new Set<string>();
  for (const d of declarations) for (const p of d.check?.(payload) ?? []) problems.add(p);
  return [...problems];
}

/** The engine's event sender over `store`. */
export function engineEvents(o: EngineEventsOptions): EngineEventSender {
  const names = () => eventNames(o.flows.current());
  const check = (name: string, payload: unknown) => eventCheck(o.flows.current(), name, payload);
  return {
    check,
    names,
    async send(event: OutsideEvent): Promise<EventReceipt> {
      const problems = eventProblems(event);
      if (problems.length === 0) problems.push(...check(event.name, event.payload ?? {}));
      if (problems.length > 0) throw new EventInvalidError(problems);
      const entry = eventEntry(event, o.strategy ?? 'user-in-chat', o.now());
      const [result] = await o.store.append([entry]);
      if (result?.id != null) {
        o.events.emit('accepted', {
          id: result.id,
          kind: entry.kind ?? 'update',
          conversationKey: entry.conversationKey!,
          payload: entry.payload,
          at: entry.receivedAt!,
        });
        o.wake();
      }
      return {
        accepted: result?.inserted === true,
        id: result?.id ?? null,
        conversation: entry.conversationKey!,
      };
    },
  };
}
