/**
 * Issue 29 (mini-apps): flow files show every button kind the platform has (callback, link,
 * request_contact, request_geo_location, open_app, clipboard, message), each drawn as the platform's
 * button, and `botflow check` reports a keyboard that breaks the platform's limits at its file:line,
 * with what to do.
 */
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { Drive } from './drive.ts';

function check(source: string) {
  const r = compileSources([{ file: 'demo.flow.yaml', source }], defineRegistry({}), new Map());
  return {
    ...r,
    lines: r.problems.map((p) => formatProblem({ ...p, hint: undefined })),
    hints: r.problems.map((p) => p.hint),
  };
}

const menu = (rows: string) => `flow: demo
start: shop
steps:
  shop:
    type: menu
    say: Your order
    keyboard:
${rows}
  done:
    type: end
`;

describe('button kinds in flow files', () => {
  it('draws each kind as the platform button', () => {
    const r = check(
      menu(`      - - { id: pay, text: Pay, value: "42", goto: done }
        - { text: Site, url: "https://example.org" }
      - - { text: Open the shop, open_app: { web_app: shop_bot, payload: order-42 } }
        - { text: By id, open_app: { contact_id: 9001 } }
      - - { text: Copy the code, clipboard: PROMO-2026 }
        - { text: Yes please, message: true }
      - - { text: Phone, request: contact }
        - { text: Where, request: location, quick: true }`),
    );
    expect(r.lines).toEqual([]);
    const d = new Drive(r.flows[0] as FlowDefinition);
    const send = d.effects.find((e) => e.kind === 'api' && e.op === 'sendMessage') as unknown as {
      args: { attachments: { payload: { buttons: unknown[][] } }[] };
    };
    expect(send.args.attachments[0]!.payload.buttons).toEqual([
      [
        { type: 'callback', text: 'Pay', payload: 'pay:42' },
        { type: 'link', text: 'Site', url: 'https://example.org' },
      ],
      [
        { type: 'open_app', text: 'Open the shop', web_app: 'shop_bot', payload: 'order-42' },
        { type: 'open_app', text: 'By id', contact_id: 9001 },
      ],
      [
        { type: 'clipboard', text: 'Copy the code', payload: 'PROMO-2026' },
        { type: 'message', text: 'Yes please' },
      ],
      [
        { type: 'request_contact', text: 'Phone' },
        { type: 'request_geo_location', text: 'Where', quick: true },
      ],
    ]);
  });

  it('reports a button of two kinds, or of none, and keys its kind does not take', () => {
    const r = check(
      menu(`      - - { id: pay, text: Pay, goto: done }
      - - { text: Both, clipboard: x, message: true }
      - - { text: None }
      - - { text: App, open_app: { web_app: shop_bot }, goto: done }
      - - { text: Copy, clipboard: x, value: "1" }
      - - { text: Here, request: contact, quick: true }
      - - { text: Nobody, open_app: {} }`),
    );
    expect(r.lines).toEqual([
      'demo.flow.yaml:9:11: error: a button is one kind; this one has clipboard and message',
      'demo.flow.yaml:10:11: error: a button needs a kind: id (callback), url (link), request (contact | location), open_app, clipboard or message',
      'demo.flow.yaml:11:63: error: an open_app button reports no press to the bot, so its goto would never run',
      'demo.flow.yaml:12:46: error: value travels with a callback press; this button sends none',
      'demo.flow.yaml:13:50: error: quick is for request: location buttons',
      'demo.flow.yaml:14:37: warning: open_app names no bot: the platform documents no default for which mini-app opens',
    ]);
  });

  it('refuses unknown keys inside open_app and a clipboard text over 1024 characters', () => {
    const r = check(
      menu(`      - - { id: pay, text: Pay, goto: done }
      - - { text: App, open_app: { webapp: shop_bot } }
      - - { text: Copy, clipboard: "${'c'.repeat(1025)}" }`),
    );
    expect(r.lines.join('\n')).toContain('demo.flow.yaml:9:');
    expect(r.lines.join('\n')).toContain('unknown key "webapp"');
    expect(r.lines.join('\n')).toContain('demo.flow.yaml:10:');
  });
});

describe('botflow check: the platform keyboard limits', () => {
  const wide: Record<string, string> = {
    link: '{ text: Site, url: "https://example.org" }',
    open_app: '{ text: App, open_app: { web_app: shop_bot } }',
    contact: '{ text: Phone, request: contact }',
    location: '{ text: Where, request: location }',
  };
  for (const [kind, button] of Object.entries(wide)) {
    it(`reports a fourth button in a row with a ${kind} button, at the row, with what to do`, () => {
      const r = check(
        menu(`      - - { id: pay, text: Pay, goto: done }
      - - ${button}
        - { id: a, text: A, goto: done }
        - { id: b, text: B, goto: done }
        - { id: c, text: C, goto: done }`),
      );
      expect(r.lines).toEqual([
        expect.stringMatching(
          /^demo\.flow\.yaml:9:9: error: keyboard buttons\[1\] has 4 buttons; the limit is 3 per row when the row holds a \w+ button$/,
        ),
      ]);
      expect(r.hints).toEqual([
        'a row with a link, open_app, contact or location button takes 3 buttons: move the rest to another row',
      ]);
    });
  }

  it('accepts three in such a row, and seven callback buttons in a row', () => {
    const seven = Array.from({ length: 7 }, (_, i) => `{ id: b${i}, text: B${i}, goto: done }`).join(', ');
    const r = check(
      menu(`      - [${wide.open_app}, ${wide.link}, { id: x, text: X, goto: done }]
      - [${seven}]`),
    );
    expect(r.lines).toEqual([]);
  });

  it('reports more than 30 rows at the keyboard', () => {
    const rows = Array.from({ length: 31 }, (_, i) => `      - [{ id: r${i}, text: R${i}, goto: done }]`);
    const r = check(menu(rows.join('\n')));
    expect(r.lines).toEqual(['demo.flow.yaml:8:7: error: keyboard buttons has 31 rows; the limit is 30']);
    expect(r.hints[0]).toContain('at most 30 rows');
  });
});

describe('botflow check: the keyboards botflow adds to a step', () => {
  const input = (lines: string) => `flow: demo
start: pick
steps:
  pick:
    type: input
    say: Pick
${lines}
    retries: { max: 3, exhausted: { goto: done } }
    save: picked
    next: done
  done:
    type: end
`;

  it('counts the Done row of a multi_choice', () => {
    const options = Array.from({ length: 30 }, (_, i) => `{ id: o${i}, text: O${i} }`).join(', ');
    const r = check(input(`    input: multi_choice\n    options: [${options}]`));
    expect(r.lines).toEqual(['demo.flow.yaml:8:14: error: keyboard buttons has 31 rows; the limit is 30']);
    const fits = Array.from({ length: 29 }, (_, i) => `{ id: o${i}, text: O${i} }`).join(', ');
    expect(check(input(`    input: multi_choice\n    options: [${fits}]`)).lines).toEqual([]);
  });

  it('counts the fullest page of options_from and its ‹ › row', () => {
    const from = (pageSize: number, columns: number) =>
      input(`    input: choice
    options_from: { list: slots, page_size: ${pageSize}, empty: { goto: done } }
    columns: ${columns}`);
    const errors = (source: string) => check(source).problems.filter((p) => p.severity === 'error');
    expect(errors(from(30, 1)).map((p) => formatProblem({ ...p, hint: undefined }))).toEqual([
      'demo.flow.yaml:8:19: error: keyboard buttons has 31 rows; the limit is 30',
    ]);
    expect(errors(from(30, 1))[0]!.hint).toContain('lower options_from.page_size or raise columns');
    expect(errors(from(29, 1))).toEqual([]);
    expect(errors(from(30, 2))).toEqual([]);
  });
});

describe('{{variables}} in a clipboard text and a mini-app payload', () => {
  const flow = (payload: string) => `flow: demo
start: shop
steps:
  shop:
    type: menu
    set: { order: "A&17" }
    say: Your order
    keyboard:
      - - { id: pay, text: Pay, goto: done }
      - - { text: Copy, clipboard: "Order {{order}}" }
        - { text: App, open_app: { web_app: shop_bot, payload: "${payload}" } }
  done:
    type: end
`;

  it('fills them in when the keyboard is drawn, unescaped', () => {
    const r = check(flow('order-{{order}}'));
    expect(r.lines).toEqual([]);
    const d = new Drive(r.flows[0] as FlowDefinition);
    const send = d.effects.find((e) => e.kind === 'api' && e.op === 'sendMessage') as unknown as {
      args: { attachments: { payload: { buttons: unknown[][] } }[] };
    };
    expect(send.args.attachments[0]!.payload.buttons[1]).toEqual([
      { type: 'clipboard', text: 'Copy', payload: 'Order A&17' },
      { type: 'open_app', text: 'App', web_app: 'shop_bot', payload: 'order-A&17' },
    ]);
  });

  it('checks them like every other read', () => {
    expect(check(flow('order-{{ordr}}')).lines).toEqual([
      'demo.flow.yaml:11:73: warning: unknown variable "ordr" in {{ordr}}',
    ]);
  });
});
