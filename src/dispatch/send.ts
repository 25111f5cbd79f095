/**
 * Sending one outbox row, whichever dispatcher took it (the single process's, or the elected one of
 * several processes on PostgreSQL): the call through the gateway (a message through the send-once read-back,
 * media uploaded first), and what its outcome writes back (the row's settlement, the flow's result event).
 */
import { basename } from 'node:path';
import { ApiError } from '../client/errors.ts';
import type { Job, MediaKind } from '../client/scheduler/types.ts';
import type { MediaSource } from '../client/upload.ts';
import { BotflowError } from '../errors/index.ts';
import type { OutboxRow } from '../store/outbox.ts';
import { inDoubt } from '../store/ports/outbox.ts';
import {
  type ClaimedMessages,
  expectedMessage,
  findSent,
  messageIdOf,
  type StoredMessage,
  sendCommentOnce,
  sendOnce,
} from './sent-once.ts';

/**
 * Where calls go: the scheduler (`submit`) or anything with the same shape. Like the scheduler, a gateway
 * must await `job.onStart` before each attempt's request goes out: on PostgreSQL it records that the call
 * may be on the platform, so that a process dying before the answer is read back instead of sent twice.
 */
export interface CallGateway {
  submit(job: Job): Promise<unknown>;
}

/** Uploads a file and resolves with the attachment request to put in a message. */
export type MediaUploader = (media: MediaSource) => Promise<Record<string, unknown>>;

/** What a call came to. */
export type CallOutcome =
  | { ok: true; result: unknown }
  | { ok: false; error: { code: string; message: string } };

/** The error code and message a failed call is recorded with. */
export function errorInfo(error: unknown): { code: string; message: string } {
  const e = error as {
    reason?: string;
    lastError?: unknown;
    code?: unknown;
    message?: string;
    name?: string;
  };
  const last = e?.lastError;
  if (last instanceof ApiError) return { code: last.code, message: String(e.message) };
  if (error instanceof ApiError) return { code: error.code, message: error.message };
  const code =
    typeof e?.reason === 'string' ? e.reason : typeof e?.code === 'string' ? e.code : (e?.name ?? 'error');
  return { code, message: String(e?.message ?? error) };
}

/**
 * Whether a resend of `row` may read its chat back (a message to a known chat, a comment, an upload's
 * message): only those need the outbox to record when their call goes to the transport.
 */
export function mayReadBack(row: Pick<OutboxRow, 'kind' | 'op' | 'chatId'>): boolean {
  return (
    row.kind === 'upload_and_send' ||
    row.op === 'sendComment' ||
    (row.op === 'sendMessage' && row.chatId !== null)
  );
}

/** Sends `row`: its answer, or a rejection with the reason. */
export async function sendCall(
  row: OutboxRow,
  via: {
    gateway: CallGateway;
    upload?: MediaUploader | undefined;
    now(): number;
    /** The call goes to the transport now (`OutboxPort.markSent`). */
    onWire?: (() => Promise<void> | void) | undefined;
  },
  claimed: ClaimedMessages,
): Promise<unknown> {
  const args = JSON.parse(row.args) as Record<string, unknown>;
  const job = {
    op: row.op,
    args,
    priority: row.priority,
    ...(row.chatId !== null ? { chatId: row.chatId } : {}),
    ...(via.onWire ? { onStart: via.onWire } : {}),
  } as Job;
  // Read back only a call an earlier attempt handed to the transport, not one merely claimed (issue 36).
  const doubt = inDoubt(row);
  if (row.kind === 'api') {
    // A message is never shown twice: an ambiguous failure is resolved by reading the chat back
    // (with or without text, attachments included).
    if (row.op === 'sendMessage' && row.chatId !== null)
      return sendOnce(via.gateway, job, row.chatId, row.sentAt ?? via.now(), doubt, claimed);
    if (row.op === 'sendComment')
      return sendCommentOnce(via.gateway, job, row.sentAt ?? via.now(), doubt, claimed);
    return via.gateway.submit(job);
  }
  const { media, message, ...target } = args as {
    media: MediaSource;
    message: Record<string, unknown>;
  };
  if (!via.upload)
    throw new BotflowError(
      'BOTFLOW_OPTIONS_INVALID',
      'upload_and_send needs an uploader: give createEngine an api client',
    );
  const given = Array.isArray(message.attachments) ? message.attachments : [];
  const since = row.sentAt ?? via.now();
  if (doubt && row.chatId !== null) {
    // In flight when the last process stopped: the message may be there already. Its token is unknown
    // (a new upload would give another), so it is recognised by its text and the kinds of its attachments.
    const expected = expectedMessage({ ...message, attachments: [...given, { type: media.type }] });
    const fileName = media.type === 'file' ? basename(media.source) : undefined;
    if (fileName) expected.attachments.at(-1)!.filename = fileName;
    const found = await findSent(via.gateway, expected, row.chatId, since, claimed);
    if (found) {
      claimed.claim(found);
      return { ...found, attachment: attachmentOf(found.message, media.type) };
    }
  }
  // The upload makes no message: one whose answer was lost is made again (client/upload.ts), and only
  // the send below can show something, once.
  const attachment = await via.upload(media);
  const send = {
    ...job,
    args: { ...target, ...message, attachments: [...given, attachment] },
    mediaKind: media.type as MediaKind,
  } as Job;
  const result =
    row.chatId !== null
      ? await sendOnce(via.gateway, send, row.chatId, since, false, claimed)
      : await via.gateway.submit(send);
  return { ...(result as object), attachment };
}

/** The attachment request that sends again the media of kind `type` a found message carries. */
function attachmentOf(message: StoredMessage, type: string): Record<string, unknown> | undefined {
  const stored = message.body?.attachments?.find((a) => a?.type === type);
  const token = stored?.payload?.token;
  return typeof token === 'string' ? { type, payload: { token } } : undefined;
}

/**
 * The row's settlement: done (with the result when the flow wants it) or failed with the reason. A sent
 * message's id is kept even when the flow does not want the result: after a crash, the read-back of a
 * resent message must not take an earlier identical message for it (see `sentMessageIds`).
 */
export function finishOf(
  row: Pick<OutboxRow, 'ref' | 'op'>,
  outcome: CallOutcome,
): { status: 'done' | 'failed'; result?: string; error?: string } {
  if (!outcome.ok) return { status: 'failed', error: `${outcome.error.code}: ${outcome.error.message}` };
  if (row.ref) return { status: 'done', result: JSON.stringify(outcome.result ?? null) };
  const mid = row.op === 'sendMessage' ? messageIdOf(outcome.result) : undefined;
  return { status: 'done', ...(mid ? { result: JSON.stringify({ message: { body: { mid } } }) } : {}) };
}

/** The `effect_result` event the flow hears (JSON), when it asked for the result (`ref`). */
export function resultEventOf(
  row: Pick<OutboxRow, 'id' | 'revision' | 'ref'>,
  outcome: CallOutcome,
): string | undefined {
  if (!row.ref) return undefined;
  return JSON.stringify({
    outboxId: row.id,
    revision: row.revision,
    ref: row.ref,
    ok: outcome.ok,
    ...(outcome.ok ? { result: outcome.result ?? null } : { error: outcome.error }),
  });
}
