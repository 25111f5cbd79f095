/** The side panel's graph of a flow (drawn by the page's graph.js). */
import type { StepView } from '../flows/kinds/views.ts';
import type { DiagramItem } from '../flows/mermaid.ts';

/** A flow's graph, for drawing: top-level steps and the transitions between them. */
export interface PanelGraph {
  initial?: string;
  nodes: {
    id: string;
    final: boolean;
    compound: boolean;
    note?: string;
    /** How the step's kind draws it (its outline and badge); absent where no flow file says (plumbing). */
    kind?: StepView;
  }[];
  edges: { from: string; to: string; label: string }[];
}

/** The compiler's state that sends a finished call back to its caller: drawn as the call's note instead. */
const RETURN_STATE = '__return';

/**
 * The panel's graph of a flow: the top level of the diagram `botflow graph` prints (flows/mermaid.ts), so
 * the panel draws exactly that. Steps inside a called flow's block belong to the block's state; the return
 * plumbing of calls is left out (a call goes back to where the conversation was). `views` says how each
 * step's kind draws it (flows/step-views.ts), by step id.
 */
export function panelGraph(
  diagram: readonly DiagramItem[],
  stepOrder: readonly string[] = [],
  views: Readonly<Record<string, StepView>> = {},
): PanelGraph {
  const graph: PanelGraph = { nodes: [], edges: [] };
  const nodes = new Map<string, PanelGraph['nodes'][number]>();
  const node = (id: string) => {
    let n = nodes.get(id);
    if (!n) {
      n = { id, final: false, compound: false, ...(Object.hasOwn(views, id) ? { kind: views[id] } : {}) };
      nodes.set(id, n);
      graph.nodes.push(n);
    }
    return n;
  };
  for (const item of diagram) {
    if (item.kind === 'initial') graph.initial = node(item.to).id;
    else if (item.kind === 'final') node(item.state).final = true;
    else if (item.kind === 'block') node(item.state).compound = true;
    else if (item.kind === 'note') {
      const n = node(item.state);
      n.note = n.note ? `${n.note}; ${item.text}` : item.text;
    } else if (item.from !== RETURN_STATE && item.to !== RETURN_STATE) {
      graph.edges.push({ from: node(item.from).id, to: node(item.to).id, label: item.label });
    }
  }
  // In the flow file's step order: the page reads it as the designer's reading order.
  const position = (id: string) => {
    const i = stepOrder.indexOf(id);
    return i < 0 ? stepOrder.length : i;
  };
  graph.nodes.sort((a, b) => position(a.id) - position(b.id));
  return graph;
}
