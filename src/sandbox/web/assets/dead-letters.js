// Calls that failed for good (dead letters: refused by the platform, or still failing when their time to
// live ended), above the conversation: sent again or given up from the page, as `botflow outbox` does.
import { inspector } from './api.js';
import { clock, h } from './dom.js';

/** The section, or null when no call failed; `changed()` is called after a retry or drop. */
export async function deadLettersSection(changed) {
  const letters = await inspector.deadLetters();
  if (letters.length === 0) return null;
  const act = (action, ids) => async (event) => {
    event.target.disabled = true;
    await inspector.redrive(action, ids);
    changed();
  };
  const button = (label, action, ids, title) =>
    h('button', { type: 'button', class: 'link-btn', title, onclick: act(action, ids) }, label);
  return h(
    'section',
    { class: 'panel-section dead-letters', 'aria-label': 'Failed calls' },
    h('h3', {}, `Failed calls (${letters.length})`),
    h(
      'p',
      { class: 'muted small' },
      'These calls to the platform failed for good. Send them again in their conversation’s order, or drop them.',
    ),
    h(
      'ul',
      { class: 'dead-letter-list' },
      letters.map((d) =>
        h(
          'li',
          { 'data-outbox-id': String(d.outboxId) },
          h('strong', {}, d.op),
          h(
            'span',
            { class: 'muted' },
            ` ${d.conversationKey} · ${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'}`,
          ),
          d.failedAt ? h('time', { class: 'muted' }, ` ${clock(d.failedAt)}`) : null,
          d.error ? h('div', { class: 'ev-error' }, d.error) : null,
          h(
            'div',
            { class: 'dead-letter-actions' },
            button('send again', 'retry', [d.outboxId], 'Put this call back in line'),
            button('drop', 'drop', [d.outboxId], 'Give this call up for good'),
          ),
        ),
      ),
    ),
    letters.length > 1
      ? h(
          'div',
          { class: 'dead-letter-actions' },
          button('send all again', 'retry', undefined, 'Put every failed call back in line'),
          button('drop all', 'drop', undefined, 'Give every failed call up'),
        )
      : null,
  );
}
