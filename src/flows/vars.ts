/** The conversation's variables as flow files name them. */
import { computedRead } from './computed.ts';

/**
 * Reads `a.b.c` from the variables: own properties only (never `constructor` or a prototype's). A first
 * name no variable holds is a flow's computed value, when it has one of that name (computed.ts).
 */
export function readVar(vars: Readonly<Record<string, unknown>>, path: string): unknown {
  let cur: unknown = vars;
  for (const seg of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (!Object.hasOwn(cur, seg)) {
      const computed = cur === vars ? computedRead(seg, vars) : undefined;
      if (!computed) return undefined;
      cur = computed.value;
      continue;
    }
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}
