/** The conversation's variables as flow files name them. */

/** Reads `a.b.c` from the variables: own properties only (never `constructor` or a prototype's). */
export function readVar(vars: Readonly<Record<string, unknown>>, path: string): unknown {
  let cur: unknown = vars;
  for (const seg of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, seg)) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}
