/** Rows of the campaign queries as the port answers them, the same on both databases. */
import type { CampaignFigures, PersonFacts, RecipientStatus } from './types.ts';

const STATUSES: RecipientStatus[] = ['queued', 'released', 'sent', 'failed', 'skipped'];

/** The step of a stored state value (`ask`, or `pay>card` inside a called flow). */
function stepOf(stateValue: string): string {
  const parts: string[] = [];
  let v: unknown = JSON.parse(stateValue);
  while (v && typeof v === 'object') {
    const [key, inner] = Object.entries(v as Record<string, unknown>)[0] ?? [];
    if (key === undefined) break;
    parts.push(key);
    v = inner;
  }
  if (typeof v === 'string') parts.push(v);
  return parts.join('>');
}

/** A matched person's row with its step named. */
export function stepKeyOfValue(row: Omit<PersonFacts, 'step'> & { stateValue: string }): PersonFacts {
  const { stateValue, ...rest } = row;
  return {
    ...rest,
    userId: rest.userId === null ? null : Number(rest.userId),
    chatId: rest.chatId === null ? null : Number(rest.chatId),
    lastActiveAt: Number(rest.lastActiveAt),
    step: stepOf(stateValue),
  };
}

/** A campaign's figures from its status counts, reasons and funnel rows. */
export function figuresOf(
  statuses: readonly { status: string; n: number | string }[],
  reasons: readonly { reason: string | null; n: number | string }[],
  funnel: Record<string, number | string | null> | undefined,
): CampaignFigures {
  const byStatus = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<RecipientStatus, number>;
  for (const r of statuses) byStatus[r.status as RecipientStatus] = Number(r.n);
  const byReason: Record<string, number> = {};
  for (const r of reasons) {
    const word = (r.reason ?? 'unknown').split(/[:\s]/)[0] || 'unknown';
    byReason[word] = (byReason[word] ?? 0) + Number(r.n);
  }
  return {
    byStatus,
    reasons: byReason,
    funnel: {
      reached: Number(funnel?.reached ?? 0),
      started: Number(funnel?.started ?? 0),
      finished: Number(funnel?.finished ?? 0),
    },
  };
}
