/** What `botflow check` says of handoff steps, and how opening hours are read (docs/handoff.md). */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { withinHours } from '../../src/flows/schema-handoff.ts';

const flow = (header: string, step = 'return_to: done') => `flow: desk
start: human
${header}
steps:
  human:
    type: handoff
    ${step}
  done: { type: end, say: Done. }
`;
const problems = (source: string) =>
  compileSources([{ file: 'desk.flow.yaml', source }], EMPTY_REGISTRY, new Map()).problems.map(
    (p) => p.message,
  );

describe('handoff steps in botflow check', () => {
  it('need the operators chat', () => {
    expect(problems(flow(''))).toContainEqual(expect.stringContaining("names no operators' chat"));
    expect(problems(flow('handoff: { operators_chat: -5 }'))).toEqual([]);
  });
  it('check where they go', () => {
    expect(problems(flow('handoff: { operators_chat: -5 }', 'return_to: nowhere'))).toContainEqual(
      expect.stringContaining('nowhere'),
    );
  });
  it('refuse hours that are not days and spans', () => {
    expect(
      problems(flow('handoff: { operators_chat: -5, hours: { weekdays: "09:00-18:00" } }')),
    ).toContainEqual(expect.stringContaining('a day (mon) or a range of days'));
    expect(problems(flow('handoff: { operators_chat: -5, hours: { mon: "9-18" } }'))).not.toEqual([]);
  });
});

describe('opening hours', () => {
  const monday = (h: number, m = 0) => Date.UTC(2026, 0, 5, h, m);
  it('are days or ranges of days, each with spans, in a time zone', () => {
    const hours = { tz: 'Europe/Paris', 'mon-fri': '09:00-18:00', sat: ['10:00-12:00', '14:00-16:00'] };
    expect(withinHours(hours, monday(8))).toBe(true); // 09:00 in Paris
    expect(withinHours(hours, monday(7, 59))).toBe(false);
    expect(withinHours(hours, monday(17))).toBe(false); // 18:00 in Paris: closed
    expect(withinHours(hours, monday(24 * 5 + 12))).toBe(false); // Saturday 13:00 in Paris
    expect(withinHours(hours, monday(24 * 5 + 13))).toBe(true); // Saturday 14:00
    expect(withinHours(hours, monday(24 * 6 + 12))).toBe(false); // Sunday
    expect(withinHours(undefined, monday(3))).toBe(true);
  });
  it('wrap around the week end', () => {
    expect(withinHours({ 'fri-mon': '00:00-24:00' }, monday(24 * 6))).toBe(true); // Sunday
    expect(withinHours({ 'fri-mon': '00:00-24:00' }, monday(24 * 2))).toBe(false); // Wednesday
  });
});
