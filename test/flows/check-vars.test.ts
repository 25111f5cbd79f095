/** botflow check knows the flow's data: every read of a variable is a known name, a known field, and set on every path. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lintFlow } from '../../src/flows/lint.ts';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { defineRegistry, defineTask } from '../../src/flows/registry.ts';
import type { FlowFile } from '../../src/flows/schema.ts';
import { loadCatalog } from '../../src/flows/texts.ts';
import { parseFlowSource } from '../../src/flows/yaml-source.ts';

const registry = defineRegistry({
  tasks: {
    quote: defineTask({
      result: z.object({
        price: z.number(),
        items: z.array(z.object({ title: z.string(), cost: z.number() })),
      }),
      run: async () => ({ price: 1, items: [] }),
    }),
    plain: async () => ({ anything: 1 }),
  },
});

function check(source: string, catalogs: Record<string, string> = {}) {
  const r = compileSources(
    [{ file: 'order.flow.yaml', source }],
    registry,
    new Map(Object.entries(catalogs).map(([l, s]) => [l, loadCatalog(l, `locales/${l}.ftl`, s)])),
  );
  return r.problems.map((p) => formatProblem(p));
}

/** An order: quantity, address, a quote from a task, a summary with edit buttons. */
const ORDER = `flow: order
start: ask_qty
steps:
  ask_qty:
    type: input
    say: How many?
    input: integer
    retries: { max: 2, exhausted: { goto: bye } }
    save: qty
    next: ask_address
  ask_address:
    type: input
    say: Where to?
    input: text
    retries: { max: 2, exhausted: { goto: bye } }
    save: address
    next: price_order
  price_order:
    type: message
    say: "Pricing {{qty}} items…"
    do:
      - task: quote
        input: { qty: "{{qty}}", to: "{{address}}" }
        save_as: quote
        on_error: { say: "No quote.", goto: bye }
    next: confirm
  confirm:
    type: menu
    say: "{{qty}} to {{address}}: {{quote.price}}"
    keyboard:
      - - { id: ok, text: OK, goto: pick }
      - - { id: edit_address, text: Edit address, goto: ask_address }
  pick:
    type: input
    say: Which one?
    input: choice
    options_from:
      list: quote.items
      text: "{{item.title}} ({{item.cost}})"
      value: item.title
      empty: { goto: bye }
    retries: { max: 2, exhausted: { goto: bye } }
    save: title
    next: bye
  bye:
    type: end
`;

describe('botflow check: variables', () => {
  it('passes a flow whose every read is set on every path', () => {
    expect(check(ORDER)).toEqual([]);
  });

  it('names the path on which a read variable is unset', () => {
    // A new entry point to ask_address skips ask_qty: price_order then reads qty unset.
    const skip = ORDER.replace(
      'start: ask_qty',
      'start: ask_qty\ncommands:\n  address: { goto: ask_address }',
    );
    expect(check(skip)).toEqual([
      'order.flow.yaml:22:10: warning: "qty" is unset when the person comes to "price_order" from "ask_address"\n' +
        '    hint: path: ask_qty →[/address] ask_address → price_order; it is set at ask_qty; set qty on every path to "price_order", or read it only where it is set',
      'order.flow.yaml:25:23: warning: "qty" is unset when the person comes to "price_order" from "ask_address"\n' +
        '    hint: path: ask_qty →[/address] ask_address → price_order; it is set at ask_qty; set qty on every path to "price_order", or read it only where it is set',
      'order.flow.yaml:31:10: warning: "qty" is unset when the person comes to "confirm" from "price_order" via done\n' +
        '    hint: path: ask_qty →[/address] ask_address → price_order →[done] confirm; it is set at ask_qty; set qty on every path to "confirm", or read it only where it is set',
    ]);
  });

  it('reports a task result read before the task ran', () => {
    const early = ORDER.replace('say: Where to?', 'say: "Where to? ({{quote.price}})"');
    expect(check(early).map((l) => l.split('\n')[0])).toEqual([
      'order.flow.yaml:13:10: warning: {{quote.price}} reads "quote", which is unset when the person comes to "ask_address" from "ask_qty"',
    ]);
  });

  it('does not flag a variable proven set by an exists condition', () => {
    const guarded = ORDER.replace(
      '    next: confirm\n',
      '    next: confirm\n  maybe:\n    type: branch\n    cases: [{ when: { var: nick, exists: true }, goto: hi }]\n    else: bye\n  hi:\n    type: end\n    say: "Hi {{nick}}"\n',
    ).replace(
      '      - - { id: ok, text: OK, goto: pick }',
      '      - - { id: ok, text: OK, goto: pick }\n        - { id: nick, text: Nick, set: { nick: N }, goto: maybe }',
    );
    expect(check(guarded)).toEqual([]);
  });

  it('reports unknown variables and fields with a guess, where the shape is known', () => {
    const typos = ORDER.replace(
      '"{{qty}} to {{address}}: {{quote.price}}"',
      '"{{qty}} to {{adress}}: {{quote.prise}}"',
    )
      .replace('text: "{{item.title}} ({{item.cost}})"', 'text: "{{item.titel}} ({{item.cost}})"')
      .replace('value: item.title', 'value: item.tite');
    expect(check(typos)).toEqual([
      'order.flow.yaml:29:24: warning: unknown variable "adress" in {{adress}}\n    hint: did you mean "address"?',
      'order.flow.yaml:29:36: error: "quote" has no field "prise"\n    hint: did you mean "quote.price"? (the result of task quote (fields: price, items))',
      'order.flow.yaml:39:16: error: "item" has no field "titel"\n    hint: did you mean "item.title"? (the result of task quote (fields: title, cost))',
      'order.flow.yaml:40:14: error: "item" has no field "tite"\n    hint: did you mean "item.title"? (the result of task quote (fields: title, cost))',
    ]);
  });

  it('options_from.list must hold a list when its kind is known', () => {
    expect(check(ORDER.replace('list: quote.items', 'list: qty')).map((l) => l.split('\n')[0])).toEqual([
      'order.flow.yaml:38:13: error: "qty" is a number, not a list',
    ]);
  });

  it('checks names in expressions and conditions, at their column', () => {
    const expr = ORDER.replace(
      '      - - { id: ok, text: OK, goto: pick }',
      '      - - { id: ok, text: OK, goto: pick, set: { total: "= qty * quote.prise + tipp" } }',
    ).replace(
      '    next: bye\n  bye:',
      '    next:\n      - { when: { expr: "exists(nick) and qtty > 2" }, goto: bye }\n      - { goto: bye }\n  bye:',
    );
    expect(check(expr).map((l) => l.split('\n')[0])).toEqual([
      'order.flow.yaml:31:66: error: "quote" has no field "prise"',
      'order.flow.yaml:31:80: warning: unknown variable "tipp"',
      'order.flow.yaml:45:33: warning: unknown variable "nick"',
      'order.flow.yaml:45:43: warning: unknown variable "qtty"',
    ]);
  });

  it('says once that a plain-function task has a result check cannot see into', () => {
    const plain = ORDER.replace('task: quote', 'task: plain').replace(
      'options_from:\n      list: quote.items',
      'options_from:\n      list: quote.items',
    );
    expect(check(plain)).toEqual([
      'order.flow.yaml:22:15: note: task "plain" is a plain function, so the fields of its result "quote" are not checked\n' +
        '    hint: give it a result schema: defineTask({ result: z.object({ … }), run })',
    ]);
  });

  it('in an i18n flow, options_from text is a message id, its $item fields checked', () => {
    const flow = (text: string) => `flow: order
start: price
i18n: { default_locale: en }
steps:
  price:
    type: message
    say: hi
    do: [{ task: quote, save_as: quote, on_error: bye }]
    next: pick
  pick:
    type: input
    say: hi
    input: choice
    options_from: { list: quote.items, text: ${text}, empty: { goto: bye } }
    retries: { max: 2, exhausted: { goto: bye } }
    save: picked
    next: bye
  bye:
    type: end
`;
    const catalog = {
      en: 'hi = Hi\nitem-label = { $item_title } ({ $item_cots })\nitem-ok = { $item_title }\n',
    };
    expect(check(flow('"{{item.title}} – {{item.cost}}"'), catalog).map((l) => l.split('\n')[0])).toEqual([
      'order.flow.yaml:14:46: error: "{{item.title}} – {{item.cost}}" is not a message id, but this flow uses i18n',
    ]);
    expect(check(flow('item-label'), catalog)).toEqual([
      'locales/en.ftl:2:33: error: $item_cots in message "item-label": the result of task quote (fields: title, cost) has no field "cots"\n    hint: did you mean $item_cost?',
    ]);
    expect(check(flow('item-ok'), catalog)).toEqual([]);
    expect(
      check(flow('item-ok').replace(', text: item-ok', ''), catalog).map((l) => l.split('\n')[0]),
    ).toEqual([
      'order.flow.yaml:14:19: error: options_from has no text, and its default "{{item}}" is not a message id: the buttons would show {{item}}',
    ]);
  });
});

describe('botflow check: computed values and set: in new places (read defensively, before the schema has them)', () => {
  /** Lints a file the schema does not know yet (computed:, set: on a step or a next entry) as parsed YAML. */
  const lint = (source: string) => {
    const parsed = parseFlowSource(source, 'order.flow.yaml');
    const flow = parsed.data as FlowFile;
    return lintFlow({
      flow,
      file: 'order.flow.yaml',
      text: source,
      locate: parsed.locate,
      registry,
      catalogs: new Map(),
      flows: new Map([[flow.flow, flow]]),
    }).map((p) => formatProblem({ ...p, hint: undefined }));
  };
  const flow = (computed: string, entry = '') => `flow: order
start: ask_qty
computed:
${computed}
steps:
  ask_qty:
    type: input
    say: How many?
    input: integer
    retries: { max: 2, exhausted: { goto: bye } }
    save: qty
    next: total
  total:
    type: message
${entry}    say: "Total: {{total}}"
    next: bye
  bye:
    type: end
    say: "Bye {{total}}"
`;

  it('a computed value is always defined; its inputs are checked where it is read', () => {
    expect(lint(flow('  total: "= qty * price"', '    set: { price: 3 }\n'))).toEqual([
      'order.flow.yaml:20:10: warning: {{total}} reads "qty", which is unset when the person comes to "bye" from "ask_qty" via exhausted',
      'order.flow.yaml:20:10: warning: {{total}} reads "price", which is unset when the person comes to "bye" from "ask_qty" via exhausted',
    ]);
    expect(
      lint(flow('  total: "= qty * 3"').replace('exhausted: { goto: bye }', 'exhausted: { goto: ask_qty }')),
    ).toEqual([]);
  });

  it('reports unknown names in a computed value, and a cycle among computed values', () => {
    expect(lint(flow('  total: "= qty * prise"\n  a: "= b + 1"\n  b: "= a + 1"'))).toEqual(
      expect.arrayContaining([
        'order.flow.yaml:4:19: warning: unknown variable "prise"',
        'order.flow.yaml:5:6: error: computed values read each other in a circle: a → b → a',
      ]),
    );
  });

  it('set: on a next entry assigns on that route only', () => {
    const src = (second: string) => `flow: order
start: ask_qty
steps:
  ask_qty:
    type: input
    say: How many?
    input: integer
    retries: { max: 2, exhausted: { goto: ask_qty } }
    save: qty
    next:
      - { when: { var: qty, gt: 5 }, goto: size, set: { size: big } }
      - ${second}
  size:
    type: end
    say: "A {{size}} order"
`;
    expect(lint(src('{ goto: size }'))).toEqual([
      'order.flow.yaml:15:10: warning: "size" is unset when the person comes to "size" from "ask_qty"',
    ]);
    expect(lint(src('{ goto: size, set: { size: small } }'))).toEqual([]);
  });
});

describe('botflow check: variables across called flows', () => {
  const address = `flow: address
start: ask_street
steps:
  ask_street:
    type: input
    say: "Street for {{who}}?"
    input: text
    retries: { max: 2, exhausted: { goto: stop } }
    save: street
    next: done
  done:
    type: end
    return: [street]
  stop:
    type: end
`;
  const caller = (withs: string, read: string) => `flow: order
start: ask_name
triggers: [{ command: order }]
steps:
  ask_name:
    type: input
    say: Name?
    input: text
    retries: { max: 2, exhausted: { goto: bye } }
    save: name
    next: home
  home:
    type: call
    flow: address
    with: ${withs}
    save_as: home
    next: bye
  bye:
    type: end
    say: "${read}"
`;
  const run = (withs: string, read: string) =>
    compileSources(
      [
        { file: 'address.flow.yaml', source: address },
        { file: 'order.flow.yaml', source: caller(withs, read) },
      ],
      registry,
      new Map(),
    ).problems.map((p) => formatProblem({ ...p, hint: undefined }));

  it('a called flow sees what every caller passes, and the caller reads its return value by field', () => {
    expect(run('{ who: "{{name}}" }', 'Thanks')).toEqual([]);
    expect(run('{ whom: "{{name}}" }', 'Thanks')).toEqual([
      'address.flow.yaml:6:24: warning: unknown variable "who" in {{who}}',
    ]);
    expect(run('{ who: "{{name}}" }', '{{home.stret}}')).toEqual([
      'order.flow.yaml:20:13: error: "home" has no field "stret"',
    ]);
  });
});
