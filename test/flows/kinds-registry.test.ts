import { describe, expect, it } from 'vitest';
import { BUILTIN_KINDS, KIND_NAMES, kindOf } from '../../src/flows/kinds/registry.ts';
import { STEP_SCHEMAS } from '../../src/flows/kinds/steps.ts';
import type { Step } from '../../src/flows/schema.ts';

describe('the built-in step kinds', () => {
  it('lists the same kinds in its registry and its schema union, in the same order', () => {
    const schemaTypes = STEP_SCHEMAS.map((s) => s.shape.type.value);
    expect(KIND_NAMES).toEqual(schemaTypes);
    expect(KIND_NAMES).toEqual(['message', 'input', 'menu', 'wait', 'branch', 'call', 'end', 'handoff']);
  });

  it("gives each kind its own schema, whose type is the kind's, and a summary", () => {
    BUILTIN_KINDS.forEach((kind, i) => {
      expect(kind.schema).toBe(STEP_SCHEMAS[i]);
      expect(kind.summary.length).toBeGreaterThan(20);
    });
  });

  it('finds a step its kind by type, and refuses a type no kind has', () => {
    expect(kindOf({ type: 'branch', cases: [{ when: 'x', goto: 'a' }], else: 'b' } as Step).type).toBe(
      'branch',
    );
    expect(() => kindOf({ type: 'rating' } as unknown as Step)).toThrow(
      /no step kind "rating".*message, input/,
    );
  });
});
