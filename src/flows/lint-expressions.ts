/** The computed values of a flow file (`set:` values written "= …", `{expr: …}` conditions), read as run would. */
import { compileFlowExpression, isExpression } from './expressions.ts';
import type { Report } from './lint-input.ts';
import type { Path } from './problems.ts';
import type { FlowFile } from './schema.ts';

/** An expression that `botflow run` could not read, reported where it is written. */
export function checkExpression(source: string, path: Path, report: Report): void {
  try {
    compileFlowExpression(source);
  } catch (error) {
    report(
      'bad-expression',
      path,
      'error',
      (error as Error).message,
      'expressions use variables by name, "double-quoted" texts, and, or, not, if … then … else …',
    );
  }
}

/** Every `set:` value written "= …", wherever a route sets variables. */
export function lintComputedValues(flow: FlowFile, report: Report): void {
  const visit = (node: unknown, path: Path): void => {
    if (Array.isArray(node)) {
      node.forEach((x, i) => {
        visit(x, [...path, i]);
      });
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      // `set:` values and a task's `input:` values may be computed ("= …").
      const computed = key === 'set' || (key === 'input' && 'task' in node);
      if (computed && value && typeof value === 'object' && !Array.isArray(value)) {
        for (const [name, v] of Object.entries(value)) {
          if (!isExpression(v)) continue;
          if (path[0] === 'migrate')
            report(
              'bad-migration',
              [...path, key, name],
              'error',
              'a migration sets constants only',
              'write the value itself',
            );
          else checkExpression(v, [...path, key, name], report);
        }
      } else visit(value, [...path, key]);
    }
  };
  visit(flow, []);
}
