/**
 * Lease news between the processes of one bot's database: NOTIFY on its lease channel (`botflow_leases`) when a process leaves
 * (with what it hands over), releases partitions or joins, sent in the statement that makes the change so
 * that it is heard once the change is committed. The others tick at once on hearing it: a clean stop's
 * partitions and dispatcher role move within a round trip instead of at the next tick.
 */
import type { HandedSend, LeaseNews } from '../ports/leases.ts';

/** The channel of lease news in the default schema (another: `channelsOf(schema).leases`). */
export const LEASES_CHANNEL = 'botflow_leases';

/** NOTIFY payloads are limited to 8000 bytes: the handover keeps the latest calls that fit. */
const MAX_SENDS = 200;

/** The payload of `news` (JSON). */
export function leaseNewsPayload(news: LeaseNews): string {
  const sends = news.handover?.sends;
  if (!sends) return JSON.stringify(news);
  const kept: HandedSend[] = [...sends].sort((a, b) => a.agoMs - b.agoMs).slice(0, MAX_SENDS);
  return JSON.stringify({ ...news, handover: { sends: kept.map(compactSend) } });
}

const compactSend = (s: HandedSend): HandedSend => ({
  agoMs: Math.round(s.agoMs),
  ...(s.chatId !== undefined ? { chatId: s.chatId } : {}),
});

/** The news in a payload; undefined when it is not one (another sender on the channel). */
export function parseLeaseNews(payload: string | undefined): LeaseNews | undefined {
  if (!payload) return undefined;
  try {
    const news = JSON.parse(payload) as LeaseNews;
    if (typeof news?.member !== 'string' || !['left', 'released', 'joined'].includes(news.kind))
      return undefined;
    return news;
  } catch {
    return undefined;
  }
}
