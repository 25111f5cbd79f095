/**
 * Computed values (`computed:` in a flow file): variables whose value is an expression over the others,
 * worked out each time one is read, like a spreadsheet's cells. A summary reached again after an edit
 * (`come_back`) therefore never shows a stale total. They are never stored: while a compiled flow handles
 * an event (run-time-failures.ts wraps its machine's transitions), a read of a name that no variable holds
 * falls back to the computed value of that name (vars.ts), so texts, conditions, expressions and task
 * inputs all see them.
 */
import { ExpressionError, type ExpressionScope, evaluateExpression } from './expressions.ts';
import { readingComputed } from './vars.ts';

/** Computed values by name: `total: "= qty * price"`. */
export type ComputedValues = Readonly<Record<string, string>>;

/** Runs `run` (one transition of a compiled flow) with `computed` readable. */
export function withComputed<T>(computed: ComputedValues, scope: ExpressionScope, run: () => T): T {
  const stack: string[] = [];
  const evaluate = (name: string, vars: Readonly<Record<string, unknown>>) => {
    if (stack.includes(name))
      throw new ExpressionError(
        `computed value "${name}" depends on itself: ${[...stack.slice(stack.indexOf(name)), name].join(' → ')}`,
      );
    stack.push(name);
    try {
      return evaluateExpression(computed[name]!, vars, scope);
    } catch (error) {
      if (error instanceof ExpressionError && error.message.startsWith('computed value')) throw error;
      throw new ExpressionError(`computed value "${name}": ${(error as Error).message}`);
    } finally {
      stack.pop();
    }
  };
  return readingComputed(Object.keys(computed), evaluate, run);
}
