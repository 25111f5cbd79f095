/** The storyboard and the graph of a flow with a wait step: its text, and its event edges. */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { buildStoryboard } from '../../src/runtime/storyboard.ts';

const SHOP = `flow: shop
start: wait
triggers: [{ command: track }]
events:
  order_shipped: { payload: { type: object, properties: { id: { type: integer } } } }
steps:
  wait:
    type: wait
    say: We will tell you.
    idle: { after: 7d, goto: late }
    on_event:
      order_shipped: { save_as: shipment, goto: shipped }
  shipped: { type: end, say: "Order {{shipment.id}} shipped." }
  late: { type: end, say: Late. }
`;

describe('the storyboard of a flow with events', () => {
  it('shows a wait step with its text, its event edge and its timeout', () => {
    const [flow] = compileSources(
      [{ file: 'shop.flow.yaml', source: SHOP }],
      EMPTY_REGISTRY,
      new Map(),
    ).flows;
    const board = buildStoryboard(flow!);
    const wait = board.steps.find((s) => s.id === 'wait')!;
    expect(wait.frames[0]!.messages.map((m) => m.text)).toEqual(['We will tell you.']);
    expect(wait.next).toContainEqual({ to: 'shipped', label: 'event order_shipped' });
    expect(wait.next).toContainEqual({ to: 'late', label: 'idle' });
  });
});
