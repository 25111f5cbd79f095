/**
 * A campaign's inbox entry (kind `campaign`, one per recipient, dedupe key `campaign:<id>:<key>`): the
 * runner releases it, and planning it starts the campaign's flow for the person, or records why not.
 * Whatever the outcome, the recipient's row is settled in the same transaction as the event (a `recipient`
 * write), so a crash between release and commit replays the entry and nobody is messaged twice.
 */
import type { InboxEvent } from '../../store/engine-inbox.ts';
import type { SessionRow } from '../../store/sessions.ts';
import type { RecipientWrite, WriteOp } from '../../store/write-plan.ts';
import type { EventMeta, FlowDefinition, FlowInput } from '../step/contract.ts';

/** The inbox kind of a released campaign recipient. */
export const CAMPAIGN_KIND = 'campaign';

/** How long a campaign entry may wait behind people's events, at most (ms): it is never starved. */
export const CAMPAIGN_ENTRY_MAX_WAIT_MS = 1000;

/**
 * The batch's part of the one priority order (client/scheduler/types.ts `PRIORITIES`): when a batch read
 * holds people's events and campaign entries, the campaign entries (and any later event of their
 * conversations, which keep their order) wait for the next batch, planned while this one commits, unless
 * they have waited `CAMPAIGN_ENTRY_MAX_WAIT_MS` already. A batch of campaign entries alone goes as it is.
 */
export function interactiveFirst(rows: InboxEvent[], now: number): InboxEvent[] {
  const isCampaign = (row: InboxEvent) => row.kind === CAMPAIGN_KIND;
  if (!rows.some(isCampaign) || rows.every(isCampaign)) return rows;
  const deferred = new Set<string>();
  const kept = rows.filter((row) => {
    const key = row.conversationKey;
    if (isCampaign(row) && now - row.receivedAt < CAMPAIGN_ENTRY_MAX_WAIT_MS) {
      if (key !== null) deferred.add(key);
      return false;
    }
    return key === null || !deferred.has(key);
  });
  return kept.length > 0 ? kept : rows;
}

/** The dedupe key of recipient `key` of campaign `id`: one entry per person and campaign, ever. */
export const campaignDedupeKey = (id: string, key: string) => `campaign:${id}:${key}`;

/** What a campaign entry carries (its payload, as JSON). */
export interface CampaignEntry {
  campaign: string;
  flow: string;
  with: Record<string, unknown>;
  userId: number | null;
  chatId: number | null;
  locale: string | null;
  /** A session active and moved within this many ms is a dialog under way: the person is skipped. */
  busyMs: number;
}

/** What to do with a campaign entry. */
export type CampaignStart =
  | { skip: string; entry: CampaignEntry }
  | { entry: CampaignEntry; flow: FlowDefinition; trigger: FlowInput['trigger']; meta: EventMeta };

/** Decides a campaign entry for conversation `key` whose stored session is `session`. Pure. */
export function campaignStart(
  key: string,
  payload: string,
  session: SessionRow | undefined,
  flows: readonly FlowDefinition[],
  now: number,
): CampaignStart {
  const entry = JSON.parse(payload) as CampaignEntry;
  if (session?.status === 'stopped') return { skip: 'stopped: the conversation was stopped', entry };
  if (session?.status === 'active' && now - session.updatedAt < entry.busyMs)
    return { skip: `busy: in a dialog of flow ${session.flowId}`, entry };
  const flow = flows.find((f) => f.id === entry.flow);
  if (!flow) return { skip: `no_flow: flow ${entry.flow} is not loaded`, entry };
  const meta: EventMeta = {
    conversation: key,
    ...(entry.chatId !== null ? { chatId: entry.chatId } : {}),
    ...(entry.userId !== null ? { userId: entry.userId } : {}),
    ...(entry.locale !== null ? { locale: entry.locale } : {}),
    now,
  };
  const trigger = { kind: 'call', from: `campaign:${entry.campaign}`, context: { ...entry.with } } as const;
  return { entry, flow, trigger, meta };
}

/** Records a skipped recipient's write into `ops`; returns the event's reason. */
export function campaignSkipped(
  ops: WriteOp[],
  key: string,
  start: Extract<CampaignStart, { skip: string }>,
  now: number,
): string {
  ops.push(recipientWrite(start.entry, key, 'skipped', start.skip, now));
  return `campaign ${start.entry.campaign}: ${start.skip}`;
}

/**
 * After the campaign's flow started: its first calls get the `bulk` priority (a campaign's messages wait
 * behind every reply, edit and button answer: the scheduler serves `bulk` last), and the recipient is sent.
 */
export function campaignStarted(ops: WriteOp[], key: string, entry: CampaignEntry, now: number): void {
  for (const op of ops) if (op.kind === 'call') op.row = { ...op.row, priority: 'bulk' };
  ops.push(recipientWrite(entry, key, 'sent', null, now));
}

/** The write settling the recipient of `entry`. */
function recipientWrite(
  entry: CampaignEntry,
  key: string,
  status: RecipientWrite['status'],
  reason: string | null,
  at: number,
): RecipientWrite {
  return { kind: 'recipient', campaignId: entry.campaign, key, status, reason, at };
}
