/**
 * External events (`bot.events.send`, `POST /events`, `botflow event send`) as the planner meets them: the
 * stored event decoded, the facts its flow event carries (a new session has no update to take its chat and
 * person from: they come from the event's address), and the policy for a person on a step that does not
 * take it. Pure.
 */
import type { StoredEvent } from '../../inbox/event-entry.ts';
import type { SessionRow } from '../../store/sessions.ts';
import type { EventMeta, FlowDefinition, WhileElsewhere } from '../step/contract.ts';
import { findFlowToStart } from './routing.ts';

/**
 * What an interrupting event (`while_elsewhere: interrupt`) leaves of the old flow's unsent calls: its
 * callback answers (a press must still be answered: the person would watch a spinner); its messages, edits
 * and sender actions go, in the step's own transaction (docs/events.md).
 */
export const INTERRUPT_KEEPS: string[] = ['answerCallback'];

/** The stored event of an inbox row of kind `event`. */
export function decodeStoredEvent(payload: string): StoredEvent {
  const stored = JSON.parse(payload) as StoredEvent;
  if (typeof stored?.name !== 'string') throw new TypeError('an event row without a name');
  return stored;
}

/** The chat and person a conversation key names (`u:42`, `c:-7`, `c:-7:u:42`). */
export function placeOfKey(key: string): { chatId?: number; userId?: number } {
  const m = /^(?:u:(-?\d+)|c:(-?\d+)(?::u:(-?\d+))?)$/.exec(key);
  if (!m) return {};
  if (m[1] !== undefined) return { userId: Number(m[1]) };
  return { chatId: Number(m[2]), ...(m[3] !== undefined ? { userId: Number(m[3]) } : {}) };
}

/** The facts of an event for `key`: the session's chat and person first, then the event's, then the key's. */
export function eventMeta(
  key: string,
  stored: StoredEvent,
  row: SessionRow | undefined,
  now: number,
): EventMeta {
  const place = placeOfKey(key);
  const chatId = row?.chatId ?? stored.chatId ?? place.chatId;
  const userId = row?.userId ?? stored.userId ?? place.userId;
  return {
    conversation: key,
    ...(chatId !== undefined && chatId !== null ? { chatId } : {}),
    ...(userId !== undefined && userId !== null ? { userId } : {}),
    ...(row?.locale ? { locale: row.locale } : {}),
    now,
  };
}

/**
 * What an event the current step does not take does: the running flow's declaration (`events:`), else the
 * declaration of the flow the event would start (its trigger), else `ignore`.
 */
export function eventPolicy(
  flows: readonly FlowDefinition[],
  running: FlowDefinition,
  name: string,
): WhileElsewhere {
  const own = running.events?.[name]?.whileElsewhere;
  if (own) return own;
  const starting = findFlowToStart(flows, { kind: 'event', name, payload: undefined });
  return starting?.events?.[name]?.whileElsewhere ?? 'ignore';
}
