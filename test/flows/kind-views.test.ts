/**
 * How the views show a step kind (issue 37): each built-in kind draws itself (a shape the playground's graph
 * knows and a label), a kind that says nothing gets a stadium labelled with its type, a `call` leads views
 * into the flow it runs, and an `input` writes the skeleton turns of its answers.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { STEP_SHAPES, type StepKind, stepKind } from '../../src/flows/kinds/contract.ts';
import { BUILTIN_KINDS, kindOf } from '../../src/flows/kinds/registry.ts';
import { DEFAULT_SHAPE, drawingOf, nestedFlow, skeletonTurn } from '../../src/flows/kinds/views.ts';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import type { Step } from '../../src/flows/schema.ts';
import { stepFinder, stepViews } from '../../src/flows/step-views.ts';
import { stepSources } from '../../src/testing/skeleton-steps.ts';

/** A kind of a project's own, saying nothing of how it is shown. */
const rating = stepKind({
  type: 'rating',
  summary: 'Asks for one to five stars, as buttons or typed',
  schema: z.strictObject({ type: z.literal('rating') }),
  understands: true,
  walk: () => {},
  graph: () => {},
  state: () => ({}),
}) as unknown as StepKind;

function compile(files: Record<string, string>): FlowDefinition[] {
  const compiled = compileSources(
    Object.entries(files).map(([file, source]) => ({ file, source })),
    EMPTY_REGISTRY,
    new Map(),
  );
  expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return compiled.flows;
}

describe('how the views show a step kind', () => {
  it('every built-in kind declares its drawing: a shape the graph draws, and a label', () => {
    for (const kind of BUILTIN_KINDS) {
      expect(kind.drawing, `${kind.type} has no drawing`).toBeDefined();
      expect(STEP_SHAPES).toContain(kind.drawing!.shape);
      expect(kind.drawing!.label.length, kind.type).toBeGreaterThan(0);
    }
    expect(Object.fromEntries(BUILTIN_KINDS.map((k) => [k.type, drawingOf(k).shape]))).toEqual({
      message: 'stadium',
      input: 'rect',
      menu: 'rect',
      wait: 'parallelogram',
      branch: 'hexagon',
      call: 'subroutine',
      end: 'stadium',
      handoff: 'parallelogram',
    });
  });

  it("the playground's graph draws every shape a kind may name (an unknown one as a stadium)", async () => {
    // The page's own script (it draws what the server sends), imported as the browser does.
    const script = new URL('../../src/sandbox/web/assets/node-shapes.js', import.meta.url).href;
    const { shapeOf } = (await import(script)) as { shapeOf: (node: object) => string };
    for (const shape of STEP_SHAPES) expect(shapeOf({ kind: { shape } })).toBe(shape);
    expect(shapeOf({ kind: { shape: 'cloud' } })).toBe(DEFAULT_SHAPE);
    expect(shapeOf({})).toBe(DEFAULT_SHAPE);
  });

  it('a kind that says nothing is drawn as a stadium with its type, nests nothing, writes no turn', () => {
    expect(drawingOf(rating)).toEqual({ type: 'rating', shape: 'stadium', label: 'rating' });
    const step = { type: 'rating' } as StepFieldsOf;
    expect(nestedFlow(rating, step)).toBeUndefined();
    expect(skeletonTurn(rating, step, 'accept', 'stars')).toBeUndefined();
  });

  it("an input writes its answers' turns, naming what it reads; other ways are left to every step's", () => {
    const input = kindOf({ type: 'input' } as Step);
    const age = { type: 'input', input: 'number' } as Step;
    expect(skeletonTurn(input, age, 'accept', 'ask_age')).toBe(
      'say: "TODO an answer ask_age accepts (number)"',
    );
    expect(skeletonTurn(input, { ...age, input: 'text' } as Step, 'accept', 'ask_name')).toBe(
      'say: "TODO an answer ask_name accepts"',
    );
    expect(skeletonTurn(input, age, 'invalid answer', 'ask_age')).toBe(
      'say: "TODO an answer ask_age refuses (number)"',
    );
    expect(skeletonTurn(input, age, 'retries exhausted', 'ask_age')).toBe(
      'say: "TODO the last refused answer at ask_age"',
    );
    expect(skeletonTurn(input, age, 'button:skip', 'ask_age')).toBeUndefined();
  });

  it('follows a state path into the flow a call step runs, and draws the steps of the flow’s own file', () => {
    const flows = compile({
      'main.flow.yaml':
        'flow: main\nstart: hello\ntriggers: [{ bot_started: true }]\nsteps:\n' +
        '  hello: { type: message, say: Hi, next: pick }\n' +
        '  pick: { type: call, flow: sub, next: bye }\n' +
        '  bye: { type: end, say: Bye }\n',
      'sub.flow.yaml':
        'flow: sub\nstart: which\nsteps:\n' +
        '  which: { type: branch, cases: [{ when: { var: x, eq: 1 }, goto: one }], else: one }\n' +
        '  one: { type: end, say: One }\n',
    });
    const main = flows.find((f) => f.id === 'main')!;
    const find = stepFinder(main);
    expect(find('pick>which')?.step.type).toBe('branch');
    expect(find('pick>which')?.flow.flow).toBe('sub');
    expect(find('hello>which')).toBeUndefined(); // a message runs no flow inside it
    expect(stepSources(main)('pick>one')?.step.type).toBe('end');
    const views = stepViews(main);
    expect(Object.keys(views)).toEqual(['hello', 'pick', 'bye']);
    expect(views.pick).toEqual({ type: 'call', shape: 'subroutine', label: 'call' });
    // A flow without files (written in code) has no steps to find or draw.
    const bare = { ...main, source: undefined } as FlowDefinition;
    expect(stepViews(bare)).toEqual({});
    expect(stepFinder(bare)('hello')).toBeUndefined();
  });
});

type StepFieldsOf = Parameters<StepKind['walk']>[0];
