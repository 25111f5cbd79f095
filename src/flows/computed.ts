/**
 * Computed values (`computed:` in a flow file): variables whose value is an expression over the others,
 * worked out each time one is read, like a spreadsheet's cells. A summary reached again after an edit
 * (`come_back`) therefore never shows a stale total. They are never stored: while a compiled flow handles
 * an event (compile.ts wraps its machine's transitions), a read of a name that no variable holds falls
 * back to the computed value of that name (vars.ts), so texts, conditions, expressions and task inputs
 * all see them.
 */
import { ExpressionError, type ExpressionScope, evaluateExpression } from './expressions.ts';

/** Computed values by name: `total: "= qty * price"`. */
export type ComputedValues = Readonly<Record<string, string>>;

interface Reading {
  computed: ComputedValues;
  scope: ExpressionScope;
  /** The computed values being worked out, innermost last: a name read again is a cycle. */
  stack: string[];
}

let current: Reading | undefined;

/** Runs `run` (one transition of a compiled flow) with `computed` readable. */
export function withComputed<T>(computed: ComputedValues, scope: ExpressionScope, run: () => T): T {
  const outer = current;
  current = { computed, scope, stack: [] };
  try {
    return run();
  } finally {
    current = outer;
  }
}

/** The computed value `name` over `vars`, when one is defined in the transition under way. */
export function computedRead(
  name: string,
  vars: Readonly<Record<string, unknown>>,
): { value: unknown } | undefined {
  const r = current;
  if (!r || !Object.hasOwn(r.computed, name)) return undefined;
  if (r.stack.includes(name))
    throw new ExpressionError(
      `computed value "${name}" depends on itself: ${[...r.stack.slice(r.stack.indexOf(name)), name].join(' → ')}`,
    );
  r.stack.push(name);
  try {
    return { value: evaluateExpression(r.computed[name]!, vars, r.scope) };
  } catch (error) {
    if (error instanceof ExpressionError && error.message.startsWith('computed value')) throw error;
    throw new ExpressionError(`computed value "${name}": ${(error as Error).message}`);
  } finally {
    r.stack.pop();
  }
}

/** The names of the computed values readable now (none outside a transition). */
export function computedNames(): string[] {
  return current ? Object.keys(current.computed) : [];
}
