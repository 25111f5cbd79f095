/**
 * Applying a NewMessageBody to a new or an existing message, with the platform's rules: text at most
 * 4000 characters, attachments resolved (tokens must be processed), on edit absent attachments kept
 * and `[]` removing them all.
 */
import { type AttachmentRequest, TEXT_MAX } from '../client/schemas/index.ts';
import { resolveAttachments } from './attachments.ts';
import { badRequest, notFound } from './errors.ts';
import { formatMessage } from './markup.ts';
import type { Platform } from './platform.ts';
import { checkSpec, SpecNewMessageBody } from './spec-schemas.ts';
import type { MessageRecord } from './state.ts';

/** The message fields a NewMessageBody sets (for a send, or the changes of an edit). */
export function messageFields(
  platform: Platform,
  raw: unknown,
  mode: 'send' | 'edit',
  what = 'NewMessageBody',
): Partial<MessageRecord> {
  const body = checkSpec(SpecNewMessageBody, raw ?? {}, what);
  if (body.text !== undefined && body.text.length > TEXT_MAX) {
    throw badRequest(`${what}.text: at most ${TEXT_MAX} characters (got ${body.text.length})`);
  }
  const fields: Partial<MessageRecord> = {};
  if (body.text !== undefined) {
    // As the platform stores it: the plain text, and the formatting as markup elements. The usernames are
    // gathered only when the text mentions someone: every user, on every send, cost O(users) per message
    // (half the campaign bench's CPU at 10,000 people, issue 35).
    let usernames: Set<string> | undefined;
    const formatted = formatMessage(body.text, body.format ?? undefined, (name) => {
      usernames ??= new Set(
        Object.values(platform.data.users).flatMap((u) => (u.username ? [u.username.toLowerCase()] : [])),
      );
      return usernames.has(name.toLowerCase());
    });
    fields.text = formatted.text;
    fields.markup = formatted.markup;
  }
  if (body.format !== undefined) fields.format = body.format;
  if (body.attachments !== undefined)
    fields.attachments = resolveAttachments(platform, body.attachments as AttachmentRequest[]);
  if (body.link) {
    if (!platform.data.messages[body.link.mid])
      throw notFound(`${what}.link.mid: message ${body.link.mid} not found`);
    fields.link = { type: body.link.type, mid: body.link.mid };
  }
  if (mode === 'send' && !fields.text && !fields.attachments?.length && !fields.link) {
    throw badRequest(`${what}: a message needs text, attachments or a link`);
  }
  return fields;
}

/** Applies an edit to `msg` (text and attachments) and tells people. */
export function applyEdit(platform: Platform, msg: MessageRecord, fields: Partial<MessageRecord>): void {
  if (fields.text !== undefined) msg.text = fields.text;
  if (fields.markup !== undefined) msg.markup = fields.markup;
  if (fields.format !== undefined) msg.format = fields.format;
  if (fields.attachments !== undefined) msg.attachments = fields.attachments;
  msg.edited_at = platform.now();
  platform.messageEdited(msg);
}
