/**
 * The built-in step kinds are listed once, in the registry (BUILTIN_KINDS): the `Step` type, the format's
 * zod union and KIND_NAMES are made from that list. So adding a kind is its folder and one line there; these
 * tests fail where a second list of the kinds appears, or where the made things stop following the list.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { type StepKind, stepKind } from '../../src/flows/kinds/contract.ts';
import { BUILTIN_KINDS, KIND_NAMES, kindOf, type StepsOf } from '../../src/flows/kinds/registry.ts';
import type { Step as LowerStep } from '../../src/flows/kinds/steps.ts';
import { FlowFile, flowFileSchema, Step } from '../../src/flows/schema.ts';

type Builtin = (typeof BUILTIN_KINDS)[number];

/** A kind as small as the contract allows, to show what one more line in a list of kinds gives. */
const TallyStep = z.strictObject({ type: z.literal('tally'), count: z.number(), next: z.string() });
type TallyStep = z.infer<typeof TallyStep>;
const tally: StepKind<TallyStep> = stepKind<TallyStep>({
  type: 'tally',
  summary: 'Counts, then moves on (a kind made up for this test).',
  schema: TallyStep,
  understands: false,
  walk: () => {},
  graph: () => {},
  state: () => ({}),
});

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The kinds whose folder `text` imports from (`./kinds/menu/schema.ts`, `../input/index.ts`…). */
const importedKinds = (text: string) =>
  new Set(
    [...text.matchAll(/from\s*'[^']*?(?:kinds\/|\.\.\/)([a-z_]+)\/[^']*'/g)]
      .map((m) => m[1]!)
      .filter((k) => KIND_NAMES.includes(k)),
  );

/** The kinds whose name `text` writes as a string ('menu', "menu", `menu`). */
const quotedKinds = (text: string) =>
  new Set(KIND_NAMES.filter((k) => new RegExp(`['"\`]${k}['"\`]`).test(text)));

describe('the built-in step kinds', () => {
  it('are named in the order of the registry', () => {
    expect(KIND_NAMES).toEqual(['message', 'input', 'menu', 'wait', 'branch', 'call', 'end', 'handoff']);
    expect(KIND_NAMES).toEqual(BUILTIN_KINDS.map((k) => k.type));
  });

  it("give each kind its own schema, whose type is the kind's, and a summary", () => {
    for (const kind of BUILTIN_KINDS) {
      const { shape } = kind.schema as unknown as z.ZodObject<{ type: z.ZodLiteral<string> }>;
      expect(shape.type.value).toBe(kind.type);
      expect(kind.summary.length).toBeGreaterThan(20);
    }
  });

  it("join the kinds' schemas into the format's union, in the registry's order", () => {
    const union = Step as unknown as z.ZodDiscriminatedUnion;
    expect(union.options).toHaveLength(BUILTIN_KINDS.length);
    BUILTIN_KINDS.forEach((kind, i) => {
      expect(union.options[i]).toBe(kind.schema);
    });
    const steps = FlowFile.shape.steps as unknown as z.ZodRecord;
    expect(steps.valueType).toBe(Step);
  });

  it("make the Step type from the registry's list: a step of each kind, and nothing else", () => {
    expectTypeOf<Step['type']>().toEqualTypeOf<Builtin['type']>();
    expectTypeOf<LowerStep>().toEqualTypeOf<Step>();
    expectTypeOf<Extract<Step, { type: 'menu' }>>().toEqualTypeOf<
      z.infer<(typeof BUILTIN_KINDS)[2]['schema']>
    >();
    expectTypeOf<z.infer<typeof FlowFile>['steps'][string]>().toEqualTypeOf<Step>();
  });

  it('take one more kind from one more line in a list: its step type and its schema in the union', () => {
    const kinds = [...BUILTIN_KINDS, tally] as const;
    type Steps = StepsOf<typeof kinds>;
    expectTypeOf<keyof Steps>().toEqualTypeOf<Builtin['type'] | 'tally'>();
    expectTypeOf<Steps['tally']>().toEqualTypeOf<TallyStep>();
    expectTypeOf<Steps['input']>().toEqualTypeOf<Extract<Step, { type: 'input' }>>();
    const file = {
      flow: 'f',
      start: 'a',
      steps: { a: { type: 'tally', count: 2, next: 'b' }, b: { type: 'end' } },
    };
    expect(FlowFile.safeParse(file).success).toBe(false);
    expect(flowFileSchema([tally]).safeParse(file).success).toBe(true);
  });

  it('are listed nowhere else in src/: no other file imports every kind or names them all', () => {
    const found: string[] = [];
    for (const file of sources(SRC)) {
      const path = relative(SRC, file);
      if (path === 'flows/kinds/registry.ts') continue;
      const text = readFileSync(file, 'utf8');
      if (importedKinds(text).size === KIND_NAMES.length) found.push(`${path} imports every kind`);
      if (quotedKinds(text).size === KIND_NAMES.length) found.push(`${path} names every kind`);
    }
    expect(found, 'make it from BUILTIN_KINDS (src/flows/kinds/registry.ts) instead').toEqual([]);
  });

  it('recognises a second list of the kinds (the check itself works)', () => {
    const imports = KIND_NAMES.map((k) => `import { ${k} } from './kinds/${k}/schema.ts';`).join('\n');
    expect(importedKinds(imports).size).toBe(KIND_NAMES.length);
    expect(importedKinds("import { x } from '../menu/answers.ts';")).toEqual(new Set(['menu']));
    expect(quotedKinds(`const all = [${KIND_NAMES.map((k) => `'${k}'`).join(', ')}];`).size).toBe(8);
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
