/** A call step's `next` is a step reference like any other (it crashed botflow check when mistyped). */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';

const CALLEE = { file: 'b.flow.yaml', source: 'flow: b\nstart: e\nsteps:\n  e: { type: end }\n' };
const caller = (next: string) => ({
  file: 'a.flow.yaml',
  source: `flow: a\nstart: c\nsteps:\n  c: { type: call, flow: b, next: ${next} }\n  after: { type: end }\n`,
});

describe('a call step’s next', () => {
  it('mistyped, is an unknown step at its place, not a crash', () => {
    const { problems } = compileSources([caller('aftr'), CALLEE], EMPTY_REGISTRY, new Map());
    expect(problems.filter((p) => p.severity === 'error')).toEqual([
      expect.objectContaining({ file: 'a.flow.yaml', line: 4, col: 35, message: 'unknown step "aftr"' }),
    ]);
  });

  it('makes the step it names reachable', () => {
    const { problems, flows } = compileSources([caller('after'), CALLEE], EMPTY_REGISTRY, new Map());
    expect(problems).toEqual([]);
    expect(flows.map((f) => f.id).sort()).toEqual(['a', 'b']);
  });
});
