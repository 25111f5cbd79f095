/**
 * The storyboard and the playground's graph draw each step as its kind says (issue 37): the panel's nodes
 * and the storyboard's steps carry the kind's type, shape and label; the storyboard page shows its badge;
 * plumbing (a called flow's block) and flows without files carry none.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { loadFlows } from '../../src/flows/load.ts';
import { Inspector } from '../../src/runtime/inspector.ts';
import { buildStoryboard, storyboardHtml } from '../../src/runtime/storyboard.ts';

let flows: FlowDefinition[];
beforeAll(async () => {
  flows = (await loadFlows('flows')).flows;
});
const flow = (id: string) => flows.find((f) => f.id === id)!;

describe("a step's kind in the views", () => {
  it("the playground's graph gets each step's kind, shape and label from the server", () => {
    const inspector = new Inspector();
    inspector.setFlows(flows, []);
    const graph = (id: string) => inspector.state().flows.find((f) => f.id === id)!.graph;
    const node = (id: string, step: string) => graph(id).nodes.find((n) => n.id === step)!;
    expect(node('signup', 'ask_name').kind).toEqual({ type: 'input', shape: 'rect', label: 'question' });
    expect(node('signup', 'confirm').kind).toEqual({ type: 'menu', shape: 'rect', label: 'menu' });
    expect(node('signup', 'done').kind).toEqual({ type: 'end', shape: 'stadium', label: 'end' });
    expect(node('order_tracking', 'placed').kind?.shape).toBe('parallelogram');
    expect(node('support', 'operator').kind).toEqual({
      type: 'handoff',
      shape: 'parallelogram',
      label: 'handoff',
    });
    // A called flow's block is the compiler's, not a step of the file: no kind.
    expect(node('signup', '__call_help')).not.toHaveProperty('kind');
    // Every step of every example flow is drawn by its kind.
    for (const f of inspector.state().flows)
      for (const n of f.graph.nodes.filter((n) => !n.id.startsWith('__')))
        expect(n.kind, `${f.id}.${n.id}`).toBeDefined();
  });

  it('the storyboard gives each step its kind, shown as a badge shaped like its drawing', () => {
    const board = buildStoryboard(flow('signup'));
    const step = (id: string) => board.steps.find((s) => s.id === id)!;
    expect(step('ask_age').kind).toEqual({ type: 'input', shape: 'rect', label: 'question' });
    expect(step('minor').kind?.type).toBe('end');
    const html = storyboardHtml([board]);
    expect(html).toContain(
      '<article class="step" id="signup--ask_age" data-step="ask_age" data-kind="input"><h3>ask_age ' +
        '<span class="kind rect" title="step of type input">question</span>',
    );
    expect(html).toMatch(/\.kind\.hexagon\{clip-path:/);
  });

  it('a flow written in code (no files) is drawn as before: no kinds', () => {
    const bare = { ...flow('help'), source: undefined } as FlowDefinition;
    const inspector = new Inspector();
    inspector.setFlows([bare], []);
    for (const n of inspector.state().flows[0]!.graph.nodes) expect(n).not.toHaveProperty('kind');
    const board = buildStoryboard(bare);
    for (const s of board.steps) expect(s).not.toHaveProperty('kind');
    expect(storyboardHtml([board])).not.toContain('class="kind');
  });
});
