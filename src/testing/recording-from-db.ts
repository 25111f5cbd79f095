/**
 * A recording built from a botflow database: the updates kept in its inbox and the calls in its outbox
 * (results only where a flow asked for them). Replay starts from an empty database, so the inbox must
 * still hold the conversation from its first update (inbox pruning removes old rows).
 */

import { BotflowError } from '../errors/index.ts';
import type { StoredEvent } from '../inbox/event-entry.ts';
import type { CallRecord, EventRecord, Recording, UpdateRecord } from '../runtime/recording.ts';
import type { HistoryData } from '../store/history.ts';
import { systemClock } from '../store/ports/clock.ts';
import { openReader } from '../store/reader.ts';

/**
 * Reads the updates and calls of one conversation (or all) from the bot's database, read-only: a SQLite
 * file (`{ path }`) or a PostgreSQL database (`{ url }` with a bot's `schema` or not, `botflow replay --database-url`, `--bot`).
 */
export async function recordingFromDatabase(
  source: { path: string } | { url: string; schema?: string },
  conversation?: string,
): Promise<Recording> {
  const reader = await openReader(source);
  try {
    return recordingFromHistory(await reader.history(conversation), reader.where, conversation);
  } finally {
    await reader.close();
  }
}

/** A recording of what a database holds (`where` names it in errors and warnings). */
export function recordingFromHistory(history: HistoryData, where: string, conversation?: string): Recording {
  const updates: UpdateRecord[] = [];
  const events: EventRecord[] = [];
  for (const r of history.updates) {
    if (r.kind === 'event' && r.conversationKey) {
      const event = JSON.parse(r.payload) as StoredEvent;
      events.push({ type: 'event', at: r.at, conversation: r.conversationKey, event, after: updates.length });
    } else updates.push({ type: 'update', at: r.at, update: JSON.parse(r.payload) });
  }
  const calls = history.settledCalls.map((r): CallRecord => {
    const args = JSON.parse(r.args) as Record<string, unknown>;
    // An upload's message gets its attachment at send time: put a stand-in where it goes (tokens are not compared).
    const { media, message, ...target } = args as {
      media?: { type: string };
      message?: Record<string, unknown>;
    };
    const attachments = [
      ...((message?.attachments as unknown[]) ?? []),
      { type: media?.type, payload: { token: '…' } },
    ];
    const flat = r.kind === 'upload_and_send' ? { ...target, ...message, attachments } : args;
    return {
      type: 'call',
      at: r.at,
      op: r.op,
      args: flat,
      ...(r.result ? { result: JSON.parse(r.result) } : {}),
      ...(r.status === 'failed' ? { error: { code: 'failed', message: r.error ?? 'failed' } } : {}),
    };
  });
  if (conversation !== undefined && updates.length + events.length === 0) {
    throw new BotflowError(
      'BOTFLOW_TEST_SETUP',
      `the inbox of ${where} has no updates of conversation "${conversation}"`,
    );
  }
  const warnings: string[] = [];
  for (const [k, at] of history.sessionStarts) {
    const first = history.firstKeptUpdate.get(k);
    if (first !== undefined && at < first) {
      warnings.push(
        `${k}: its session started before the oldest update the inbox still holds (pruned): the replay starts it from nothing and may differ for that reason`,
      );
    }
  }
  const times = [...updates.map((u) => u.at), ...events.map((e) => e.at), ...calls.map((c) => c.at)];
  return {
    startedAt: Math.min(...times, systemClock.now()),
    endedAt: Math.max(0, ...times),
    updates,
    calls,
    ...(events.length ? { events } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}
