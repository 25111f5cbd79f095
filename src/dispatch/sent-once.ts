/**
 * A message sent at most once per person, even when the platform may have taken it without answering
 * (a timeout, a reset or a 5xx after it stored the message). Instead of sending again blindly, the chat's
 * latest messages are read back: the bot's message stored as this one would be (the same text, the same
 * attachments: see `matchStored`), sent since this call first went out, is the answer; only when none is
 * there is the message sent again. Used for `sendMessage` rows whose chat is known, with or without text,
 * and for the message of an `upload_and_send` (send.ts); everything else keeps the scheduler's own retry
 * rules.
 *
 * The same message sent twice in a row (an "invalid answer, try again" repeated within seconds) must not be
 * mistaken for this call's message: every message a call accounts for, sent or found, is remembered in a
 * `ClaimedMessages` shared by the dispatcher, and a read-back takes only an unclaimed match (the earliest
 * of the closest).
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

/** A message as `getMessages` lists it: the parts a read-back compares. */
export interface StoredMessage {
  sender?: { is_bot?: boolean };
  timestamp?: number;
  body?: { text?: string | null; mid?: string; attachments?: StoredAttachment[] | null };
}

/** An attachment as the platform stores it (see `Attachment` in client/schemas/attachments.ts). */
export interface StoredAttachment {
  type?: string;
  payload?: {
    token?: string;
    url?: string;
    code?: string;
    buttons?: Array<Array<{ text?: string }>>;
  } | null;
  filename?: string;
  latitude?: number;
  longitude?: number;
}

interface ReadBack {
  messages?: StoredMessage[];
}

/**
 * What a message will look like once the platform stored it, as far as a read-back can tell: its text (as
 * sent or with the format applied), and per attachment what survives storage. The platform keeps a media
 * attachment as `{type, payload: {url, token, …}}` with its own URL, so a media attachment is its kind, and
 * its token when the request gave one (`tokens`: a hint, since the platform may store another token for
 * the same media); stickers keep their code, locations their coordinates, keyboards their buttons.
 */
export interface ExpectedMessage {
  texts: string[];
  attachments: ExpectedAttachment[];
}

export interface ExpectedAttachment {
  type: string;
  /** Tokens the request gave (an image's `photos` may give several): a stored one among them is this media. */
  tokens?: string[];
  /** A file's name on the upload host: a hint, like tokens. */
  filename?: string;
  /** Must be equal once stored: a sticker's code, a location's coordinates, a keyboard's button texts. */
  exact?: string;
}

/** The stored form a `sendMessage`'s arguments (NewMessageBody) should take. */
export function expectedMessage(args: {
  text?: unknown;
  format?: unknown;
  attachments?: unknown;
}): ExpectedMessage {
  const text = typeof args.text === 'string' ? args.text : '';
  const format = typeof args.format === 'string' ? args.format : undefined;
  const requests = Array.isArray(args.attachments) ? (args.attachments as AttachmentRequest[]) : [];
  return {
    // The platform keeps a formatted text as plain text plus markup: compare with what it stores.
    texts: [...new Set([plainText(text, format), text])],
    attachments: requests.filter((r) => typeof r?.type === 'string').map(expectedAttachment),
  };
}

interface AttachmentRequest {
  type: string;
  payload?: {
    token?: string;
    url?: string;
    photos?: Record<string, { token?: string }>;
    code?: string;
    buttons?: Array<Array<{ text?: string }>>;
  } | null;
  latitude?: number;
  longitude?: number;
}

function expectedAttachment(request: AttachmentRequest): ExpectedAttachment {
  const p = request.payload ?? {};
  switch (request.type) {
    case 'image':
    case 'video':
    case 'audio':
    case 'file': {
      const tokens = [
        ...(typeof p.token === 'string' ? [p.token] : []),
        ...Object.values(p.photos ?? {})
          .map((photo) => photo?.token)
          .filter((t): t is string => typeof t === 'string'),
      ];
      return { type: request.type, ...(tokens.length ? { tokens } : {}) };
    }
    case 'sticker':
      return { type: 'sticker', exact: String(p.code) };
    case 'location':
      return { type: 'location', exact: `${request.latitude},${request.longitude}` };
    case 'inline_keyboard':
      return { type: 'inline_keyboard', exact: buttonTexts(p.buttons) };
    default:
      return { type: request.type };
  }
}

function buttonTexts(buttons: Array<Array<{ text?: string }>> | undefined): string {
  return JSON.stringify((buttons ?? []).map((row) => (row ?? []).map((b) => b?.text ?? '')));
}

function exactOf(stored: StoredAttachment): string | undefined {
  switch (stored.type) {
    case 'sticker':
      return String(stored.payload?.code);
    case 'location':
      return `${stored.latitude},${stored.longitude}`;
    case 'inline_keyboard':
      return buttonTexts(stored.payload?.buttons);
    default:
      return undefined;
  }
}

/**
 * Whether `stored` is a message sent as `expected`: 0 when it is not, otherwise 1 plus one per hint (token,
 * file name) that agrees, so that among several candidates the closest is taken. The text must be the same
 * (none and empty are the same); the attachments the same kinds (in any order), with the same sticker code,
 * coordinates and button texts. A link preview (`share`) the platform may add to a text with a URL is not
 * counted unless one was sent.
 */
export function matchStored(stored: StoredMessage, expected: ExpectedMessage): number {
  const text = stored.body?.text ?? '';
  if (!expected.texts.includes(text)) return 0;
  const sentShare = expected.attachments.some((a) => a.type === 'share');
  const kept = (stored.body?.attachments ?? []).filter(
    (a): a is StoredAttachment => typeof a?.type === 'string' && (sentShare || a.type !== 'share'),
  );
  if (kept.length !== expected.attachments.length) return 0;
  const left = [...kept];
  let score = 1;
  for (const want of expected.attachments) {
    // The stored attachment of this kind that agrees best (an exact field must agree).
    let best = -1;
    let bestHints = -1;
    left.forEach((have, i) => {
      if (have.type !== want.type) return;
      if (want.exact !== undefined && exactOf(have) !== want.exact) return;
      const hints =
        (want.tokens && typeof have.payload?.token === 'string' && want.tokens.includes(have.payload.token)
          ? 1
          : 0) + (want.filename !== undefined && have.filename === want.filename ? 1 : 0);
      if (hints > bestHints) {
        best = i;
        bestHints = hints;
      }
    });
    if (best < 0) return 0;
    score += bestHints;
    left.splice(best, 1);
  }
  return score;
}

/**
 * Where a read-back looks: a chat's latest messages (`getMessages`, latest first), or a channel post's
 * latest comments (`getComments`, oldest first).
 */
export interface ReadBackPlace {
  job: Job;
  latestFirst: boolean;
}

/** Read-backs have their own class in the one priority order (`PRIORITIES`): after typing, before bulk. */
const READ_BACK_PRIORITY = 'readback';

/** The read-back of the chat `chatId`. */
export function chatPlace(chatId: number): ReadBackPlace {
  const args = { chat_id: chatId, count: READ_BACK };
  return { job: { op: 'getMessages', args, chatId, priority: READ_BACK_PRIORITY } as Job, latestFirst: true };
}

/** The read-back of the comments under the channel post `messageId`. */
export function commentsPlace(messageId: string): ReadBackPlace {
  const args = { message_id: messageId, count: READ_BACK };
  return { job: { op: 'getComments', args, priority: READ_BACK_PRIORITY } as Job, latestFirst: false };
}

/**
 * Reads the chat back for the bot's message sent as `expected` since `since` (ms since the epoch) that no
 * other call accounts for: the closest match (see `matchStored`), the earliest among equals. Resolves with
 * it as a send's answer (`{message}`), or undefined. `where` is a chat id or a place to read.
 */
export async function findSent(
  gateway: { submit(job: Job): Promise<unknown> },
  expected: ExpectedMessage,
  where: number | ReadBackPlace,
  since: number,
  claimed: ClaimedMessages,
): Promise<{ message: StoredMessage } | undefined> {
  const place = typeof where === 'number' ? chatPlace(where) : where;
  const read = (await gateway.submit(place.job)) as ReadBack;
  const listed = read.messages ?? [];
  let found: StoredMessage | undefined;
  let foundScore = 0;
  // Oldest first, so that the earliest of equal matches comes first.
  for (const m of place.latestFirst ? [...listed].reverse() : listed) {
    if (m.sender?.is_bot !== true || (m.timestamp ?? 0) < since - READ_BACK_SLACK_MS) continue;
    if (typeof m.body?.mid === 'string' && claimed.has(m.body.mid)) continue;
    const score = matchStored(m, expected);
    if (score > foundScore) {
      found = m;
      foundScore = score;
    }
  }
  return found ? { message: found } : undefined;
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
  return sendOnceAt(gateway, job, chatPlace(chatId), since, checkFirst, claimed);
}

/**
 * `sendOnce` for a comment (`sendComment` under the channel post `job.args.message_id`): its comments are
 * read back. A comment has text only (no attachments), compared as the platform stores it.
 */
export async function sendCommentOnce(
  gateway: { submit(job: Job): Promise<unknown> },
  job: Job,
  since: number,
  checkFirst = false,
  claimed: ClaimedMessages = new ClaimedMessages(),
): Promise<unknown> {
  const post = (job.args as { message_id?: unknown }).message_id;
  if (typeof post !== 'string') return gateway.submit(job);
  return sendOnceAt(gateway, job, commentsPlace(post), since, checkFirst, claimed);
}

async function sendOnceAt(
  gateway: { submit(job: Job): Promise<unknown> },
  job: Job,
  place: ReadBackPlace,
  since: number,
  checkFirst: boolean,
  claimed: ClaimedMessages,
): Promise<unknown> {
  const answer = await sendOrFind(gateway, job, place, since, checkFirst, claimed);
  claimed.claim(answer);
  return answer;
}

async function sendOrFind(
  gateway: { submit(job: Job): Promise<unknown> },
  job: Job,
  place: ReadBackPlace,
  since: number,
  checkFirst: boolean,
  claimed: ClaimedMessages,
): Promise<unknown> {
  const expected = expectedMessage(job.args as Record<string, unknown>);
  // Nothing to recognise (the platform refuses such a message anyway).
  if (expected.texts.every((t) => t === '') && expected.attachments.length === 0) return gateway.submit(job);
  const readBack = () => findSent(gateway, expected, place, since, claimed);
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
