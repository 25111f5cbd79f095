/** `come_back: true` routes (an edit from a summary): which steps they leave from and which they edit. */
import { onEventOf } from './event-steps.ts';
import { kindOf } from './kinds/registry.ts';
import type { FlowFile, Route, Step } from './schema.ts';
import type { ComeBack } from './state-parts.ts';

/** The routes of a step taken on what a person sends: buttons, its kind's (typed text in a menu), events. */
const routesOf = (st: Step): Route[] => [
  ...('keyboard' in st ? (st.keyboard ?? []).flat() : []),
  ...(kindOf(st).routes?.(st) ?? []).filter((r) => r.onSend).map((r) => r.route),
  ...Object.values(onEventOf(st)),
];

/** The steps with a route that says `come_back: true` (where an edit returns to), and the steps edited. */
export function comeBackSteps(f: FlowFile): ComeBack {
  const from: string[] = [];
  const edited = new Set<string>();
  for (const [id, st] of Object.entries(f.steps)) {
    const back = routesOf(st).filter((r) => r.come_back && r.goto);
    if (back.length) from.push(id);
    for (const r of back) edited.add(r.goto!);
  }
  return { from, edited };
}
