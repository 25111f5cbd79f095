/** Conditions as the graph, `botflow graph` and the storyboard show them next to the transitions they guard. */
import { describe, expect, it } from 'vitest';
import { conditionText } from '../../src/flows/conditions.ts';
import { compileSources } from '../../src/flows/load.ts';
import { flowToMermaid } from '../../src/flows/mermaid.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';

describe('conditionText', () => {
  it('reads comparisons, lists, patterns, presence, and/or/not, guards and expressions', () => {
    expect(conditionText({ var: 'age', lt: 18 })).toBe('age < 18');
    expect(conditionText({ var: 'age', ge: 18, le: 65 })).toBe('age ≥ 18 and age ≤ 65');
    expect(conditionText({ var: 'plan', eq: 'pro' })).toBe('plan = "pro"');
    expect(conditionText({ var: 'plan', ne: 'free' })).toBe('plan ≠ "free"');
    expect(conditionText({ var: 'day', in: ['sat', 'sun'] })).toBe('day in "sat", "sun"');
    expect(conditionText({ var: 'email', matches: '@corp\\.com$' })).toBe('email matches /@corp\\.com$/');
    expect(conditionText({ var: 'phone', exists: false })).toBe('phone is not set');
    expect(
      conditionText({
        any: [{ var: 'vip', eq: true }, { all: [{ var: 'n', gt: 5 }, { guard: 'open_now' }] }],
      }),
    ).toBe('vip = true or (n > 5 and open_now)');
    expect(conditionText({ not: { var: 'x', exists: true } })).toBe('not x is set');
    expect(conditionText({ expr: 'party >= 6' })).toBe('party >= 6');
  });

  it('labels the transitions of next lists and branches in the diagram', () => {
    const { flows, problems } = compileSources(
      [
        {
          file: 'order.flow.yaml',
          source: `flow: order
start: size
triggers: [{ bot_started: true }]
steps:
  size:
    type: input
    say: How many?
    input: integer
    retries: { max: 2, exhausted: { goto: done } }
    save: size
    next:
      - { when: { var: size, gt: 10 }, goto: big }
      - { goto: route }
  route:
    type: branch
    cases:
      - { when: { any: [{ var: size, eq: 1 }, { var: size, eq: 2 }] }, goto: small }
    else: done
  big: { type: end, say: Big. }
  small: { type: end, say: Small. }
  done: { type: end, say: Done. }
`,
        },
      ],
      EMPTY_REGISTRY,
      new Map(),
    );
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    const text = flowToMermaid(flows[0]!);
    expect(text).toContain('size --> big : valid answer, size > 10');
    expect(text).toContain('size --> route : valid answer, otherwise');
    expect(text).toContain('route --> small : size = 1 or size = 2');
  });
});
