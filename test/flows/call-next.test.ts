/**
 * A call step's `next` is one of its flow's ways: the step it names is reachable (it was reported
 * "unreachable" when the call's walk listed only the called flow), and a misspelt one is an unknown step.
 */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';

const callee = {
  file: 'flows/b.flow.yaml',
  source: 'flow: b\nstart: hello\nsteps:\n  hello: { type: end, say: In b. }\n',
};
const caller = (next: string) => ({
  file: 'flows/a.flow.yaml',
  source: `flow: a\nstart: first\nsteps:\n  first: { type: call, flow: b, next: ${next} }\n  after: { type: end, say: Back. }\n`,
});

describe("a call step's next", () => {
  it('makes the step it names reachable', () => {
    const r = compileSources([caller('after'), callee], EMPTY_REGISTRY, new Map());
    expect(r.problems).toEqual([]);
    expect(r.flows.map((f) => f.id).sort()).toEqual(['a', 'b']);
  });

  it('is checked as a way out: a misspelt step is unknown, with a fix', () => {
    const r = compileSources([caller('aftr'), callee], EMPTY_REGISTRY, new Map());
    const unknown = r.problems.find((p) => p.code === 'unknown-step');
    expect(unknown).toMatchObject({ file: 'flows/a.flow.yaml', line: 4, col: 39, severity: 'error' });
    expect(r.problems.filter((p) => p.severity === 'error')).toHaveLength(1); // no crash of the compiler
    expect(unknown?.fixes?.[0]?.edits[0]?.newText).toBe('after');
  });
});
