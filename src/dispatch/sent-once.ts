/**
 * A message sent at most once per person, even when the platform may have taken it without answering
 * (a timeout, a reset or a 5xx after it stored the message). Instead of sending again blindly, the chat's
 * latest messages are read back: the bot's message with the same text, sent since this call first went
 * out, is the answer; only when none is there is the message sent again. Used for `sendMessage` rows whose
 * chat is known; everything else keeps the scheduler's own retry rules.
 *
 * The same text sent twice in a row (an "invalid answer, try again" repeated within seconds) must not be
 * mistaken for this call's message: every message a call accounts for, sent or found, is remembered in a
 * `ClaimedMessages` shared by the dispatcher, and a read-back takes only the earliest unclaimed match.
 */
import { DeadLetterError, type Job } from '../client/scheduler/types.ts';

/** How far back a read-back looks: the platform's clock may run a little behind ours. */
export const READ_BACK_SLACK_MS = 5_000;

/**
 * Before a resend, the messages of calls to the same chat that finished from this long before the resent
 * call was first claimed are marked as theirs. By finish time, not claim time: a call claimed earlier may
 * have waited behind the rate limits and delivered its message well within the read-back's window.
 */
export const LEARN_WINDOW_MS = 60_000;

/** The message ids in sent messages' stored results (`finishOf`), for `ClaimedMessages`. */
export function sentMessageIds(results: readonly (string | null)[]): string[] {
  const ids: string[] = [];
  for (const result of results) {
    if (!result) continue;
    try {
      const mid = messageIdOf(JSON.parse(result));
      if (mid) ids.push(mid);
    } catch {
      // not JSON: nothing to learn
    }
  }
  return ids;
}

/** The id (`mid`) of the message a call's answer names, if it names one. */
export function messageIdOf(answer: unknown): string | undefined {
  const mid = (answer as { message?: { body?: { mid?: unknown } } } | undefined)?.message?.body?.mid;
  return typeof mid === 'string' ? mid : undefined;
}

/** Latest messages read back per check. */
const READ_BACK = 20;
/** Rounds of send, read back, send again, before the outcome is left to the scheduler's usual retries. */
const MAX_ROUNDS = 5;

/** Messages already accounted for by a call (their `mid`s), the most recent few thousand. */
export class ClaimedMessages {
  readonly #mids = new Set<string>();
  constructor(private readonly capacity = 10_000) {}
  has(mid: string): boolean {
    return this.#mids.has(mid);
  }
  /** Remembers the message a call's answer names, if it names one. */
  claim(answer: unknown): void {
    const mid = messageIdOf(answer);
    if (mid) this.add(mid);
  }
  /** Remembers a message id (one a finished call recorded, learnt after a restart). */
  add(mid: string): void {
    this.#mids.add(mid);
    if (this.#mids.size > this.capacity) this.#mids.delete(this.#mids.values().next().value as string);
  }
}

/**
 * The text of a message as the platform stores it once `format` is applied: HTML tags removed and
 * entities decoded, or the markdown markers of the platform's description removed. Close enough to
 * recognise our own message in a read-back; not a renderer.
 */
export function plainText(text: string, format: string | undefined): string {
  if (format === 'html') {
    const entities: Record<string, string> = {
      amp: '&',
      lt: '<',
      gt: '>',
      quot: '"',
      apos: "'",
      nbsp: '\u00a0',
    };
    return text
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/?[a-z][^>]*>/gi, '')
      .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (whole, name: string) =>
        name[0] === '#'
          ? String.fromCodePoint(
              name[1]?.toLowerCase() === 'x' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1)),
            )
          : (entities[name.toLowerCase()] ?? whole),
      );
  }
  if (format === 'markdown') {
    return text
      .replace(/\[([^\]]+)\]\([^)\s]+\)/g, '$1')
      .replace(/^#\s+/gm, '')
      .replace(/(```|\*\*|__|~~|\+\+|\^\^)([\s\S]+?)\1/g, '$2')
      .replace(/([*_`])([^*_`\n]+?)\1/g, '$2');
  }
  return text;
}

interface ReadBack {
  messages?: Array<{
    sender?: { is_bot?: boolean };
    timestamp?: number;
    body?: { text?: string | null; mid?: string };
  }>;
}

/**
 * Submits `job` (a `sendMessage` to `chatId`) so that an ambiguous failure is resolved by reading the chat
 * back. `since` is when the row was first sent (ms since the epoch); `checkFirst` when it was in flight
 * as a previous process stopped, so that it may already be there.
 */
export async function sendOnce(
  gateway: { submit(job: Job): Promise<unknown> },
  job: Job,
  chatId: number,
  since: number,
  checkFirst = false,
  claimed: ClaimedMessages = new ClaimedMessages(),
): Promise<unknown> {
  const answer = await sendOrFind(gateway, job, chatId, since, checkFirst, claimed);
  claimed.claim(answer);
  return answer;
}

async function sendOrFind(
  gateway: { submit(job: Job): Promise<unknown> },
  job: Job,
  chatId: number,
  since: number,
  checkFirst: boolean,
  claimed: ClaimedMessages,
): Promise<unknown> {
  const { text, format } = job.args as { text?: unknown; format?: unknown };
  if (typeof text !== 'string' || text === '') return gateway.submit(job);
  // The platform keeps a formatted text as plain text plus markup: compare with what it stores.
  const stored = plainText(text, typeof format === 'string' ? format : undefined);
  const readBack = async () => {
    const read = (await gateway.submit({
      op: 'getMessages',
      args: { chat_id: chatId, count: READ_BACK },
      chatId,
      priority: job.priority ?? 'reply',
    } as Job)) as ReadBack;
    // The platform lists the latest first: the earliest unclaimed match is the last one found.
    const sent = (read.messages ?? []).findLast(
      (m) =>
        m.sender?.is_bot === true &&
        (m.body?.text === stored || m.body?.text === text) &&
        (m.timestamp ?? 0) >= since - READ_BACK_SLACK_MS &&
        !(typeof m.body.mid === 'string' && claimed.has(m.body.mid)),
    );
    return sent ? { message: sent } : undefined;
  };
  if (checkFirst) {
    const already = await readBack();
    if (already) return already;
  }
  for (let round = 1; ; round++) {
    try {
      return await gateway.submit({
        ...job,
        sendPolicy: round < MAX_ROUNDS ? 'at-most-once' : 'at-least-once',
      });
    } catch (error) {
      if (!(error instanceof DeadLetterError && error.reason === 'ambiguous')) throw error;
    }
    const sent = await readBack();
    if (sent) return sent;
  }
}
