// Draws a flow's graph (from GET /_inspector/state) as SVG: a layered layout top to bottom, transitions
// that go back drawn as arcs on the right, and the conversation's current step highlighted.
import { svg } from './dom.js';
import { nodeTitle, outline, shapeOf } from './node-shapes.js';

const NODE_H = 30;
const RANK_GAP = 58;
const NODE_GAP = 18;
const CHAR_W = 7.2;
const MARGIN = 16;

/**
 * Edge labels as the graph shows them: `button ok` → `ok`, `valid answer, age < 18` → `age < 18`,
 * `valid answer` → `answer`; long conditions are cut (the edge's tooltip has them whole).
 */
const shortLabel = (label) => {
  const text = label
    .replace(/^button /, '')
    .replace(/^valid answer, /, '')
    .replace(/^valid answer.*/, 'answer')
    .replace(/^retries exhausted$/, 'exhausted');
  return text.length > 26 ? `${text.slice(0, 25)}…` : text;
};

export const display = (id) => (id.startsWith('__call_') ? `↪ ${id.slice(7)}` : id);

/**
 * Ranks by longest path over forward edges. Nodes come in the flow file's step order (the designer's
 * reading order), so an edge to an earlier step is a "going back" edge and is left out of the ranking.
 */
function rank(graph) {
  const index = new Map(graph.nodes.map((n, i) => [n.id, i]));
  const forward = graph.edges.filter((e) => index.get(e.to) > index.get(e.from));
  const ranks = new Map(graph.nodes.map((n) => [n.id, 0]));
  for (const n of graph.nodes) {
    for (const e of forward) {
      if (e.to === n.id) ranks.set(n.id, Math.max(ranks.get(n.id), ranks.get(e.from) + 1));
    }
  }
  // Called flows are entered from any step: they get a row of their own at the bottom.
  const last = Math.max(
    0,
    ...[...ranks.entries()].filter(([id]) => !id.startsWith('__call_')).map(([, r]) => r),
  );
  for (const n of graph.nodes) if (n.compound) ranks.set(n.id, last + 1);
  return ranks;
}

/** Positions every node: returns Map id → {x, y, w} (x is the centre) and the drawing's size. */
function layout(graph) {
  const ranks = rank(graph);
  const rows = [];
  for (const n of graph.nodes) {
    const r = ranks.get(n.id);
    if (!rows[r]) rows[r] = [];
    rows[r].push(n);
  }
  const width = (n) => Math.max(64, display(n.id).length * CHAR_W + 24);
  const pos = new Map();
  const preds = (id) => graph.edges.filter((e) => e.to === id && e.from !== id).map((e) => e.from);
  const rowWidth = (row) => row.reduce((sum, n) => sum + width(n), 0) + NODE_GAP * (row.length - 1);
  const maxWidth = Math.max(...rows.filter(Boolean).map(rowWidth), 120);
  rows.forEach((row = [], r) => {
    // Order a row by where its predecessors sit (barycentre), to keep edges short and uncrossed.
    const score = (n) => {
      const xs = preds(n.id)
        .map((p) => pos.get(p)?.x)
        .filter((x) => x !== undefined);
      return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.POSITIVE_INFINITY;
    };
    if (r > 0) row.sort((a, b) => score(a) - score(b));
    let x = MARGIN + (maxWidth - rowWidth(row)) / 2;
    for (const n of row) {
      const w = width(n);
      pos.set(n.id, { x: x + w / 2, y: MARGIN + 14 + r * (NODE_H + RANK_GAP), w });
      x += w + NODE_GAP;
    }
  });
  return {
    pos,
    width: maxWidth + 2 * MARGIN,
    height: MARGIN * 2 + 14 + rows.length * (NODE_H + RANK_GAP) - RANK_GAP,
  };
}

const at = (p0, p1, p2, p3, t) => {
  const u = 1 - t;
  return u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
};

/** The box of a label (9.5 px text: about 5.2 px a character). */
const labelBox = (l) => {
  const w = l.text.length * 5.2;
  const x0 = l.anchor === 'middle' ? l.x - w / 2 : l.anchor === 'end' ? l.x - w : l.x;
  return { x0, x1: x0 + w, y0: l.y - 9, y1: l.y + 2 };
};

/** Label boxes moved down until none overlaps an earlier one. */
export function unclash(labels) {
  const box = labelBox;
  const hits = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
  const done = [];
  for (const label of labels) {
    const l = { ...label };
    for (let tries = 0; tries < 12 && done.some((d) => hits(box(d), box(l))); tries++) l.y += 11;
    done.push(l);
  }
  return done;
}

/** The graph's edges, one per pair of steps, with the labels of every transition between them. */
function mergedEdges(graph) {
  const merged = new Map();
  for (const e of graph.edges) {
    const key = `${e.from}->${e.to}`;
    const m = merged.get(key);
    if (m) {
      if (e.label && !m.labels.includes(e.label)) m.labels.push(e.label);
    } else merged.set(key, { ...e, labels: e.label ? [e.label] : [] });
  }
  return merged.values();
}

/**
 * The path of an edge from node `a` to node `b` (positions), where its label goes (`mid`, `anchor`): down
 * to the next rank as a curve; skipping ranks out on the left, into the target from above; going back as
 * an arc on the right. Skipping and going-back edges each take the next lane of `lanes` on their side.
 */
function edgePath(e, a, b, lanes, extent) {
  const span = Math.round((b.y - a.y) / (NODE_H + RANK_GAP));
  if (e.from === e.to) {
    const x = a.x + a.w / 2;
    return { d: `M ${x} ${a.y + 8} c 26 -4 26 18 0 14`, mid: { x: x + 22, y: a.y + 15 }, anchor: 'middle' };
  }
  if (span === 1) {
    const [x0, y0, x3, y3] = [a.x, a.y + NODE_H, b.x, b.y];
    const [y1, y2] = [y0 + RANK_GAP / 2, y3 - RANK_GAP / 2];
    return {
      d: `M ${x0} ${y0} C ${x0} ${y1}, ${x3} ${y2}, ${x3} ${y3}`,
      mid: { x: at(x0, x0, x3, x3, 0.5), y: at(y0, y1, y2, y3, 0.5) },
      anchor: 'middle',
    };
  }
  if (span > 1) {
    const lane = ++lanes.left;
    const [x0, y0, x3, y3] = [a.x - a.w / 2, a.y + NODE_H / 2, b.x - b.w / 4, b.y];
    const out = Math.min(x0, extent.left) - (14 + lane * 12);
    return {
      d: `M ${x0} ${y0} C ${out} ${y0}, ${out} ${y3 - RANK_GAP / 2}, ${x3} ${y3}`,
      mid: { x: at(x0, out, out, x3, 0.5) - 3, y: at(y0, y0, y3 - RANK_GAP / 2, y3, 0.5) },
      anchor: 'end',
    };
  }
  const lane = ++lanes.right;
  const [x0, y0, x3, y3] = [a.x + a.w / 2, a.y + NODE_H / 2, b.x + b.w / 2, b.y + NODE_H / 2];
  const out = Math.max(x0, x3, extent.right) + 14 + lane * 12;
  return {
    d: `M ${x0} ${y0} C ${out} ${y0}, ${out} ${y3}, ${x3} ${y3}`,
    mid: { x: at(x0, out, out, x3, 0.5) + 3, y: (y0 + y3) / 2 },
    anchor: 'start',
  };
}

/** An edge's label: a plain answer is the expected way on, labelled only beside other ways ("answer · exhausted"). */
function edgeLabel(e) {
  const shown = [...new Set(e.labels.map(shortLabel).filter(Boolean))];
  return shown.length === 1 && shown[0] === 'answer' ? '' : shown.join(' · ');
}

/** A step's box: its name, its note as the tooltip, `current` highlighted, a final step ringed. */
function drawNode(n, p, current) {
  const cls = [
    'node',
    n.id === current ? 'current' : '',
    n.final ? 'final' : '',
    n.compound ? 'compound' : '',
  ].join(' ');
  return svg(
    'g',
    {
      class: cls,
      'data-step': n.id,
      'data-kind': n.kind?.type,
      'data-shape': shapeOf(n),
      transform: `translate(${p.x - p.w / 2}, ${p.y})`,
    },
    svg('title', {}, nodeTitle(n)),
    outline(n, p.w, NODE_H),
    svg('text', { x: p.w / 2, y: NODE_H / 2 + 4 }, display(n.id)),
  );
}

/** The SVG of `graph` with `current` (a node id, or undefined) highlighted. */
export function drawGraph(graph, current) {
  const { pos, width, height } = layout(graph);
  const edges = [];
  const labels = [];
  const placed = [];
  const lanes = { left: 0, right: 0 };
  const extent = {
    left: Math.min(...[...pos.values()].map((p) => p.x - p.w / 2)),
    right: Math.max(...[...pos.values()].map((p) => p.x + p.w / 2)),
  };
  for (const e of mergedEdges(graph)) {
    const a = pos.get(e.from);
    const b = pos.get(e.to);
    if (!a || !b) continue;
    const { d, mid, anchor } = edgePath(e, a, b, lanes, extent);
    const cls = `edge ${e.from === current ? 'edge-out' : ''}`;
    edges.push(
      svg(
        'path',
        { d, class: cls, 'marker-end': 'url(#arrow)' },
        svg('title', {}, `${e.from} → ${e.to}${e.labels.length ? `: ${e.labels.join(', ')}` : ''}`),
      ),
    );
    const label = edgeLabel(e);
    if (label) placed.push({ x: mid.x, y: mid.y + 3, anchor, text: label });
  }
  const spread = { x0: 0, x1: width, y1: height };
  for (const l of unclash(placed)) {
    labels.push(svg('text', { x: l.x, y: l.y, class: 'edge-label', 'text-anchor': l.anchor }, l.text));
    const b = labelBox(l);
    spread.x0 = Math.min(spread.x0, b.x0 - 6);
    spread.x1 = Math.max(spread.x1, b.x1 + 6);
    spread.y1 = Math.max(spread.y1, b.y1 + 6);
  }
  const nodes = graph.nodes.map((n) => drawNode(n, pos.get(n.id), current));
  const start = graph.initial && pos.get(graph.initial);
  // Wide enough for the arcs' lanes and for every label (none is clipped).
  const left = Math.max(14 + lanes.left * 12 + 30, -spread.x0);
  const right = Math.max(14 + lanes.right * 12 + 30, spread.x1 - width);
  return svg(
    'svg',
    {
      class: 'graph',
      viewBox: `${-left} 0 ${width + left + right} ${spread.y1}`,
      width: Math.round(width + left + right),
      role: 'img',
      'aria-label': `Flow graph${current ? `, current step ${current}` : ''}`,
    },
    arrowDefs(),
    start ? svg('circle', { cx: start.x, cy: start.y - 12, r: 4, class: 'start-dot' }) : null,
    start
      ? svg('path', {
          d: `M ${start.x} ${start.y - 8} L ${start.x} ${start.y - 1}`,
          class: 'edge',
          'marker-end': 'url(#arrow)',
        })
      : null,
    edges,
    nodes,
    labels,
  );
}

/** The arrow head every edge ends with. */
function arrowDefs() {
  return svg(
    'defs',
    {},
    svg(
      'marker',
      {
        id: 'arrow',
        viewBox: '0 0 10 10',
        refX: 9,
        refY: 5,
        markerWidth: 7,
        markerHeight: 7,
        orient: 'auto-start-reverse',
      },
      svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow' }),
    ),
  );
}
