/**
 * botflow check on external events: an `on_event` name nobody declares is an error with a did-you-mean;
 * a payload saved with `save_as` is typed from the flow's JSON Schema or the registry's zod schema, so a
 * misspelt field is caught like one of a task's result; event routes count as routes (reachability); a
 * payload schema botflow cannot check, and a `save_as` without an event, are errors.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileSources } from '../../src/flows/load.ts';
import { flowToMermaid } from '../../src/flows/mermaid.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { defineRegistry, EMPTY_REGISTRY, type Registry } from '../../src/flows/registry.ts';

const SHOP = `flow: shop
start: wait
triggers: [{ command: track }]
events:
  order_shipped:
    payload:
      type: object
      properties: { id: { type: integer }, carrier: { type: string } }
      required: [id]
steps:
  wait:
    type: wait
    say: We will tell you.
    on_event:
      order_shipped: { save_as: shipment, say: "By {{shipment.carrier}}", goto: shipped }
  shipped: { type: end, say: "Order {{shipment.id}} shipped." }
`;

const check = (source: string, registry: Registry = EMPTY_REGISTRY) =>
  compileSources([{ file: 'shop.flow.yaml', source }], registry, new Map()).problems.map(formatProblem);

describe('botflow check: external events', () => {
  it('passes a wait step whose event is declared, its route reaching the next step', () => {
    expect(check(SHOP)).toEqual([]);
  });

  it('an on_event name declared nowhere is an error with a did-you-mean', () => {
    expect(check(SHOP.replace('      order_shipped: { save_as', '      order_shiped: { save_as'))).toEqual([
      expect.stringContaining('warning: event "order_shipped" is declared, but no step takes it'),
      expect.stringMatching(
        /^shop\.flow\.yaml:15:\d+: error: event "order_shiped" is declared nowhere.*\n {4}hint: did you mean "order_shipped"\?$/,
      ),
    ]);
  });

  it('a saved payload is typed from the JSON Schema: an unknown field is an error', () => {
    expect(check(SHOP.replace('{{shipment.carrier}}', '{{shipment.carier}}'))).toEqual([
      expect.stringMatching(
        /error: "shipment" has no field "carier"\n {4}hint: did you mean "shipment.carrier"\?/,
      ),
    ]);
  });

  it("…or from the registry's zod schema when the flow declares none", () => {
    const registry = defineRegistry({
      events: { order_shipped: z.object({ id: z.number(), carrier: z.string() }) },
    });
    const bare = SHOP.replace(/events:\n(.*\n){5}/, '');
    expect(check(bare, registry)).toEqual([]);
    expect(check(bare.replace('{{shipment.id}}', '{{shipment.ident}}'), registry)).toEqual([
      expect.stringMatching(/error: "shipment" has no field "ident"/),
    ]);
  });

  it('a trigger save_as without an event, and a payload pattern that may backtrack, are errors', () => {
    const bad = SHOP.replace(
      'triggers: [{ command: track }]',
      'triggers: [{ command: track, save_as: x }]',
    ).replace('carrier: { type: string }', 'carrier: { type: string, pattern: "^(a+)+\\\\1$" }');
    const problems = check(bad).map((l) => l.split('\n')[0]);
    expect(problems).toEqual([
      expect.stringContaining('error: save_as goes with an event trigger'),
      expect.stringContaining('error: the payload schema of event "order_shipped": pattern'),
    ]);
  });

  it('botflow graph draws a wait step and its event edges', () => {
    const [flow] = compileSources(
      [{ file: 'shop.flow.yaml', source: SHOP }],
      EMPTY_REGISTRY,
      new Map(),
    ).flows;
    const graph = flowToMermaid(flow!);
    expect(graph).toContain('wait --> shipped : event order_shipped');
  });

  it('warns of an event declared that nothing takes, and of a wait step with no way out', () => {
    const idle = SHOP.replace('goto: shipped }', '}').replace(
      '  shipped: { type: end, say: "Order {{shipment.id}} shipped." }\n',
      '',
    );
    const problems = check(`${idle.replace('events:\n', 'events:\n  spare: {}\n')}`).map(
      (l) => l.split('\n')[0],
    );
    expect(problems).toEqual([
      expect.stringContaining('warning: event "spare" is declared, but no step takes it'),
      expect.stringContaining('warning: wait step "wait" has no way out'),
    ]);
  });
});
