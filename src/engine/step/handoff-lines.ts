/**
 * The one rule of the operators' chat (docs/handoff.md): every line botflow posts there about a person
 * carries a button it signed for that person's conversation, so that a press of it, or a reply to it,
 * reaches the person's conversation as an event. The button says what the line allows: **Take** on a
 * request nobody took, **Done** on the lines of an open request, **🔒** on every line about a closed one
 * (a press or a reply there is answered that the request is closed; it never acts). Pure.
 */

/** What an operators' chat button does: take the request, end it, or nothing (the request is closed). */
export type HandoffButton = 'take' | 'done' | 'closed';

/** The ref of the request's send: its message id comes back (`effect.done`) so that it can be edited. */
export const HANDOFF_REQUEST_REF = 'handoff-request';

/** A handoff button's payload before signing: `hf:<what>:<conversation>`. */
export const handoffPayload = (what: HandoffButton, conversation: string) => `hf:${what}:${conversation}`;

/** The keyboard of an operators' chat line: one button, `text`, doing `what` for `conversation`. */
export function handoffKeyboard(text: string, what: HandoffButton, conversation: string) {
  return {
    type: 'inline_keyboard',
    payload: { buttons: [[{ type: 'callback', text, payload: handoffPayload(what, conversation) }]] },
  };
}
