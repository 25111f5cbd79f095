// Flow files for the events part of the conformance suite (test/engine/conformance-events.test.ts): a shop
// whose wait step takes `order_shipped` (queued while the person is elsewhere) with a timeout, and a flow
// that an event starts (and that interrupts whatever runs).
import { expect } from 'vitest';
import { z } from 'zod';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';

export const SHOP = `flow: shop
start: ask
triggers: [{ bot_started: true }]
events:
  order_shipped:
    payload:
      type: object
      properties: { id: { type: integer }, carrier: { type: string } }
      required: [id]
    while_elsewhere: queue
  newsletter: {}
steps:
  ask:
    type: input
    say: Your name?
    input: text
    retries: { max: 3, exhausted: { goto: bye } }
    save: name
    next: wait_shipped
  wait_shipped:
    type: wait
    say: "{{name}}, we will tell you when it ships."
    idle: { after: 7d, say: Still nothing., goto: late }
    on_event:
      order_shipped: { save_as: shipment, say: "Shipped by {{shipment.carrier}}", goto: shipped }
      newsletter: { say: "Thanks, noted." }
  shipped: { type: end, say: "Order {{shipment.id}} is on its way." }
  late: { type: end, say: Late. }
  bye: { type: end, say: Bye. }
`;

export const TABLE = `flow: table
start: confirmed
triggers: [{ event: table_confirmed, save_as: booking }]
events:
  table_confirmed:
    payload: { type: object, properties: { time: { type: string } }, required: [time] }
    while_elsewhere: interrupt
steps:
  confirmed: { type: end, say: "Your table at {{booking.time}} is confirmed." }
`;

/** The registry's own schema for an event no flow declares a schema for. */
export const EVENT_REGISTRY = defineRegistry({
  events: { refund_issued: z.object({ amount: z.number().positive() }) },
});

/** The shop and table flows (or `first` and the table flow), compiled like flow files. */
export function eventFlows(first = { file: 'shop.flow.yaml', source: SHOP }): FlowDefinition[] {
  const compiled = compileSources(
    [first, { file: 'table.flow.yaml', source: TABLE }],
    EVENT_REGISTRY,
    new Map(),
  );
  expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return compiled.flows;
}
