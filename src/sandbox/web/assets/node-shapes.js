// A step's outline in the graph, by the shape its kind draws it with (the server sends each node's
// `kind: { type, shape, label }`, from the kind's `drawing`): stadium, rect, hexagon, subroutine,
// parallelogram. A node without a kind (a called flow's block) is a stadium, as every step once was.
import { svg } from './dom.js';

const OUTLINES = {
  stadium: (w, h) => [svg('rect', { class: 'outline', width: w, height: h, rx: h / 2 })],
  rect: (w, h) => [svg('rect', { class: 'outline', width: w, height: h, rx: 5 })],
  hexagon: (w, h) => [
    svg('path', {
      class: 'outline',
      d: `M 10 0 H ${w - 10} L ${w} ${h / 2} L ${w - 10} ${h} H 10 L 0 ${h / 2} Z`,
    }),
  ],
  subroutine: (w, h) => [
    svg('rect', { class: 'outline', width: w, height: h, rx: 4 }),
    svg('path', { class: 'bar', d: `M 7 0 V ${h} M ${w - 7} 0 V ${h}` }),
  ],
  parallelogram: (w, h) => [svg('path', { class: 'outline', d: `M 9 0 H ${w} L ${w - 9} ${h} H 0 Z` })],
};

/** The shape a node is drawn with (an unknown one is drawn as a stadium). */
export const shapeOf = (node) => (OUTLINES[node.kind?.shape] ? node.kind.shape : 'stadium');

/** The outline of `node`, `w` wide and `h` high, and the inner ring of a final step. */
export function outline(node, w, h) {
  const shape = shapeOf(node);
  const inner = node.final
    ? svg('rect', {
        class: 'inner',
        x: 3,
        y: 3,
        width: w - 6,
        height: h - 6,
        rx: shape === 'stadium' ? h / 2 - 3 : 3,
      })
    : null;
  return [...OUTLINES[shape](w, h), inner];
}

/** The node's tooltip: its id, its kind's label, what reaches it from anywhere. */
export const nodeTitle = (node) =>
  `${node.id}${node.kind ? ` (${node.kind.label})` : ''}${node.note ? `: ${node.note}` : ''}`;
