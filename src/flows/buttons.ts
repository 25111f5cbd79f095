/**
 * The button kinds of a flow file and the platform's button each becomes: one place, so that what a
 * step draws (render.ts) and what `botflow check` measures against the platform's limits
 * (lint-texts.ts) are the same button.
 */

import type { Button } from './kinds/fields.ts';
import type { Report } from './lint-input.ts';
import type { Path } from './problems.ts';

/** The key that makes a flow button each kind, and what it is for (in `botflow check`'s words). */
export const BUTTON_KINDS = {
  id: 'callback',
  url: 'link',
  request: 'request (contact | location)',
  open_app: 'open_app (a mini-app)',
  clipboard: 'clipboard (copies a text)',
  message: 'message (sends its text as the person)',
} as const;
type KindKey = keyof typeof BUTTON_KINDS;
const KIND_KEYS = Object.keys(BUTTON_KINDS) as KindKey[];

/** The keys of a button that make it a kind (exactly one is right). */
export function kindKeys(b: Button): KindKey[] {
  return KIND_KEYS.filter((k) => b[k] !== undefined);
}

/** The platform's button type a flow button becomes. */
export function buttonType(b: Button): string {
  if (b.url !== undefined) return 'link';
  if (b.request === 'contact') return 'request_contact';
  if (b.request === 'location') return 'request_geo_location';
  if (b.open_app !== undefined) return 'open_app';
  if (b.clipboard !== undefined) return 'clipboard';
  if (b.message !== undefined) return 'message';
  return 'callback';
}

/**
 * The platform's button for flow button `b`, with its text already rendered; `fill` fills the `{{variables}}`
 * of a clipboard text and a mini-app payload (left as written for the linter's measures).
 */
export function platformButton(
  b: Button,
  text: string,
  fill: (template: string) => string = (t) => t,
): Record<string, unknown> {
  switch (buttonType(b)) {
    case 'link':
      return { type: 'link', text, url: b.url };
    case 'request_contact':
      return { type: 'request_contact', text };
    case 'request_geo_location':
      return { type: 'request_geo_location', text, ...(b.quick !== undefined ? { quick: b.quick } : {}) };
    case 'open_app': {
      const app = b.open_app!;
      return {
        type: 'open_app',
        text,
        ...app,
        ...(app.payload !== undefined ? { payload: fill(app.payload) } : {}),
      };
    }
    case 'clipboard':
      return { type: 'clipboard', text, payload: fill(b.clipboard!) };
    case 'message':
      return { type: 'message', text };
    default:
      return { type: 'callback', text, payload: b.value ? `${b.id}:${b.value}` : b.id! };
  }
}

const ROUTE_KEYS = ['goto', 'call', 'say', 'set', 'do', 'come_back'] as const;

/** One button's kind and the keys that only some kinds take. */
export function lintButton(b: Button, at: Path, report: Report): void {
  const kinds = kindKeys(b);
  if (kinds.length !== 1) {
    report(
      'button-kind',
      at,
      'error',
      kinds.length
        ? `a button is one kind; this one has ${kinds.join(' and ')}`
        : 'a button needs a kind: id (callback), url (link), request (contact | location), open_app, clipboard or message',
      kinds.length ? `keep one of ${kinds.join(', ')}` : 'e.g. { id: next, text: Next, goto: <step> }',
    );
    return;
  }
  const kind = kinds[0]!;
  if (b.value !== undefined && kind !== 'id')
    report(
      'button-field-unused',
      [...at, 'value'],
      'error',
      'value travels with a callback press; this button sends none',
      'remove it',
    );
  if (b.quick !== undefined && b.request !== 'location')
    report(
      'button-field-unused',
      [...at, 'quick'],
      'error',
      'quick is for request: location buttons',
      'remove it',
    );
  if (kind === 'open_app' || kind === 'clipboard') {
    const routes = ROUTE_KEYS.filter((k) => b[k] !== undefined);
    if (routes.length)
      report(
        'button-field-unused',
        [...at, routes[0]!],
        'error',
        `a${kind === 'open_app' ? 'n open_app' : ' clipboard'} button reports no press to the bot, so its ${routes.join(', ')} would never run`,
        'make a callback button (id) beside it for that',
      );
  }
  if (kind === 'open_app' && b.open_app?.web_app === undefined && b.open_app?.contact_id === undefined)
    report(
      'open-app-no-bot',
      [...at, 'open_app'],
      'warning',
      'open_app names no bot: the platform documents no default for which mini-app opens',
      'add web_app: <bot name or link> or contact_id: <bot id>',
    );
}
