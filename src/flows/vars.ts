/** The conversation's variables as flow files name them. */

/** The computed values readable in the transition under way (computed.ts), and how to work one out. */
interface Reading {
  names: readonly string[];
  evaluate(name: string, vars: Readonly<Record<string, unknown>>): unknown;
}
let reading: Reading | undefined;

/** Runs `run` with the computed values `names` readable through `readVar` (computed.ts sets it). */
export function readingComputed<T>(names: readonly string[], evaluate: Reading['evaluate'], run: () => T): T {
  const outer = reading;
  reading = { names, evaluate };
  try {
    return run();
  } finally {
    reading = outer;
  }
}

/** The names of the computed values readable now (none outside a transition). */
export function computedNames(): readonly string[] {
  return reading?.names ?? [];
}

/**
 * Reads `a.b.c` from the variables: own properties only (never `constructor` or a prototype's). A first
 * name no variable holds is a flow's computed value, when it has one of that name (computed.ts).
 */
export function readVar(vars: Readonly<Record<string, unknown>>, path: string): unknown {
  let cur: unknown = vars;
  for (const seg of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (!Object.hasOwn(cur, seg)) {
      if (cur !== vars || !reading?.names.includes(seg)) return undefined;
      cur = reading.evaluate(seg, vars);
      continue;
    }
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}
