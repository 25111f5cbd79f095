// "Send event": an external event for the person's conversation (an order shipped, a payment confirmed), as
// POST /events or `botflow event send` would send it; the flow waiting for it moves on.
import { inspector } from './api.js';
import { h } from './dom.js';

/** What was typed, kept across the panel's redraws (the panel redraws on every step). */
const typed = { name: '', payload: '{}', key: '' };

/** The section; `result` is the last send's outcome for this person (`{ text, error }`), shown inline. */
export function sendEventSection({ user, result, onSent }) {
  const input = (name, label, placeholder, value) =>
    h('input', { name, 'aria-label': label, placeholder, value, spellcheck: false, autocomplete: 'off' });
  const name = input('event-name', 'Event name', 'order_shipped', typed.name);
  const key = input('event-key', 'Idempotency key (optional)', 'key (optional)', typed.key);
  const payload = h(
    'textarea',
    { name: 'event-payload', rows: 3, 'aria-label': 'Payload (JSON)', spellcheck: false },
    typed.payload,
  );
  const remember = () => Object.assign(typed, { name: name.value, payload: payload.value, key: key.value });
  for (const el of [name, key, payload]) el.addEventListener('input', remember);
  const shown = result
    ? h(
        'p',
        { class: result.error ? 'error' : 'hint sent-note', role: result.error ? 'alert' : 'status' },
        result.text,
      )
    : null;
  const form = h(
    'form',
    {
      class: 'jump-form event-form',
      onsubmit: async (event) => {
        event.preventDefault();
        remember();
        let parsed;
        try {
          parsed = JSON.parse(payload.value.trim() || '{}');
        } catch {
          onSent({ text: 'The payload is not JSON: write {"carrier": "DHL"}', error: true });
          return;
        }
        const eventName = name.value.trim();
        try {
          const receipt = await inspector.sendEvent({
            user_id: user.user_id,
            name: eventName,
            payload: parsed,
            ...(key.value.trim() ? { key: key.value.trim() } : {}),
          });
          onSent({
            text: receipt.accepted
              ? `Sent ${eventName} to ${receipt.conversation} (inbox row ${receipt.id}).`
              : `Not sent again: ${eventName} with key "${key.value.trim()}" was sent before.`,
            error: false,
          });
        } catch (error) {
          onSent({ text: error.message, error: true });
        }
      },
    },
    h('div', { class: 'jump-row' }, name, key),
    payload,
    h('button', { type: 'submit', class: 'btn btn-small' }, 'Send event'),
    shown,
  );
  return h(
    'section',
    { class: 'panel-section', 'aria-label': 'Send event' },
    h('h3', {}, 'Send event'),
    form,
  );
}
