/**
 * The operators' chat (docs/handoff.md): updates from a chat a flow's `handoff:` names are not a
 * conversation of their own. A press of "Take", "Done" or 🔒 (a button botflow signed for the person's
 * conversation), or a reply to any of the bot's messages there (each carries one: step/handoff-lines.ts), becomes an
 * external event for the person's conversation, keyed by the update so that reading it again after a crash
 * stores nothing twice. The person's session handles them in order: two operators racing to take have one
 * winner. Pure.
 */
import { eventEntry } from '../../inbox/event-entry.ts';
import { HANDOFF_BUTTON } from '../../inbox/keys.ts';
import type { InboxEntry } from '../../store/inbox.ts';
import type { ButtonSigner } from '../step/buttons.ts';
import { type FlowDefinition, HANDOFF_EVENTS } from '../step/contract.ts';

/** An inbox row: its id is the event's key (`op:<id>`), the same however often the row is read. */
type Row = { id: number; kind: string; payload: string };
type Json = Record<string, unknown>;

/** The operators' chats of `flows`. */
export function operatorsChats(flows: readonly FlowDefinition[]): Set<number> {
  return new Set(flows.flatMap((f) => (f.handoff ? [f.handoff.operatorsChat] : [])));
}

/** A genuine handoff button: what it does, the person's conversation, the request (step instance) it was drawn for. */
type Signed = { what: string; key: string; instance: number };

/** The person's conversation a signed `hf:<what>:<conversation>` payload names, when it is genuine. */
function signedFor(signer: ButtonSigner, signed: unknown): Signed | undefined {
  if (typeof signed !== 'string') return undefined;
  const m = HANDOFF_BUTTON.exec(signed);
  if (!m) return undefined;
  const verified = signer.verify(m[2]!, signed);
  return verified.ok ? { what: m[1]!, key: m[2]!, instance: verified.instance } : undefined;
}

/** The first botflow handoff button among a message body's keyboards. */
function buttonIn(signer: ButtonSigner, body: Json | undefined) {
  for (const a of (body?.attachments as Json[] | undefined) ?? []) {
    if (a?.type !== 'inline_keyboard') continue;
    for (const row of ((a.payload as Json)?.buttons as Json[][] | undefined) ?? [])
      for (const b of row ?? []) {
        const found = signedFor(signer, b?.payload);
        if (found) return found;
      }
  }
  return undefined;
}

/** The event a press of each handoff button becomes. */
const PRESSED: Record<string, string> = {
  take: HANDOFF_EVENTS.take,
  done: HANDOFF_EVENTS.done,
  closed: HANDOFF_EVENTS.closed,
};

/** What an operators' chat update becomes: an event for a person, or why it is ignored. */
export type OperatorOutcome = { entry: InboxEntry; reason: string } | { reason: string };

/**
 * What update `row` means when it comes from an operators' chat of `chats`: undefined for any other row.
 */
export function operatorUpdate(
  row: Row,
  chats: ReadonlySet<number>,
  signer: ButtonSigner,
  now: number,
): OperatorOutcome | undefined {
  if (row.kind !== 'update' || chats.size === 0) return undefined;
  let update: Json;
  try {
    update = JSON.parse(row.payload) as Json;
  } catch {
    return undefined;
  }
  const message = (update.message ?? (update.callback as Json | undefined)?.message) as Json | undefined;
  const chatId = (message?.recipient as Json | undefined)?.chat_id ?? update.chat_id;
  if (typeof chatId !== 'number' || !chats.has(chatId)) return undefined;
  // `instance`: the request the button was drawn for; the person's session tells an older request's apart.
  const event = (name: string, { key, instance }: Signed, payload: Json): OperatorOutcome => ({
    // The address is a conversation key: no strategy applies to it.
    entry: eventEntry(
      {
        name,
        to: { conversation: key },
        payload: { ...payload, chat: chatId, instance },
        key: `op:${row.id}`,
      },
      'user-in-chat',
      now,
    ),
    reason: `operators' chat: ${name} for ${key}`,
  });
  if (update.update_type === 'message_callback') {
    const cb = update.callback as Json;
    const user = cb.user as Json | undefined;
    const operator = { id: user?.user_id, name: user?.name };
    const found = signedFor(signer, cb.payload);
    if (!found) return { reason: "operators' chat: a button botflow did not sign for a handoff" };
    const body = message?.body as Json | undefined;
    const base = { operator, callbackId: cb.callback_id, ...(body?.mid ? { messageId: body.mid } : {}) };
    return event(PRESSED[found.what] ?? HANDOFF_EVENTS.done, found, base);
  }
  if (update.update_type !== 'message_created' || !message)
    return { reason: "operators' chat: not for a person" };
  const sender = message.sender as Json | undefined;
  if (sender?.is_bot) return { reason: "operators' chat: the bot's own message" };
  const link = message.link as Json | undefined;
  const found = link?.type === 'reply' ? buttonIn(signer, link.message as Json) : undefined;
  if (!found) return { reason: "operators' chat: not a reply to a handoff message" };
  const operator = { id: sender?.user_id, name: sender?.name };
  // A line about a closed request: whatever the reply says, it is answered that the request is closed.
  if (found.what === 'closed') return event(HANDOFF_EVENTS.closed, found, { operator });
  const body = message.body as Json;
  const text = typeof body.text === 'string' ? body.text.trim() : '';
  const set = /^\/set(?:@\S+)?\s+([A-Za-z][A-Za-z0-9_]*)\s+([\s\S]*)$/.exec(text);
  if (set) return event(HANDOFF_EVENTS.set, found, { operator, name: set[1], value: set[2] });
  if (/^\/done(@\S+)?$/.test(text)) return event(HANDOFF_EVENTS.done, found, { operator });
  const attachments = ((body.attachments as Json[] | undefined) ?? []).filter(
    (a) => a?.type !== 'inline_keyboard',
  );
  return event(HANDOFF_EVENTS.message, found, { operator, ...(text ? { text } : {}), attachments });
}
