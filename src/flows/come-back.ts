/** `come_back: true` routes (an edit from a summary): which steps they leave from and which they edit. */
import { onEventOf } from './event-steps.ts';
import type { FlowFile, Route, Step } from './schema.ts';

/** The routes of a step (buttons, typed text in a menu). */
const routesOf = (st: Step): Route[] => [
  ...('keyboard' in st ? (st.keyboard ?? []).flat() : []),
  ...(st.type === 'menu' && st.on_text ? [st.on_text] : []),
  ...Object.values(onEventOf(st)),
];

/** The steps with a route that says `come_back: true` (where an edit returns to), and the steps edited. */
export function comeBackSteps(f: FlowFile): { from: string[]; edited: Set<string> } {
  const from: string[] = [];
  const edited = new Set<string>();
  for (const [id, st] of Object.entries(f.steps)) {
    const back = routesOf(st).filter((r) => r.come_back && r.goto);
    if (back.length) from.push(id);
    for (const r of back) edited.add(r.goto!);
  }
  return { from, edited };
}
