/**
 * `botflow check` of a task's `input:` against the registered task's zod input schema, as its result is
 * checked: a field the schema does not have (zod would drop it without a word, or refuse it), a required
 * field the flow does not give, and a literal value of the wrong type. Values copied from a variable
 * (`"{{var}}"`) or computed (`"= expr"`) are known only at run time: only their names are checked.
 */
import { objectFields } from '../dispatch/tasks/input-fields.ts';
import { isExpression } from './expressions.ts';
import { scopeOf } from './flow-scope.ts';
import type { walkFlow } from './flow-walk.ts';
import type { LintInput, Report } from './lint-input.ts';
import type { Path } from './problems.ts';
import { closest } from './problems.ts';
import type { TaskCall } from './schema.ts';
import { describeType, typeAt, typeOfZod, type VarType } from './var-types.ts';
import { issueText, pathText } from './zod-issues.ts';

type Walk = ReturnType<typeof walkFlow>;
type Schema = { safeParse(v: unknown): { success: boolean; error?: { issues: unknown[] } } };
/** Whether a field of an object schema may be left out (optional, or with a default). */
const optional = (field: unknown) => (field as { _zod?: { optin?: string } })._zod?.optin !== undefined;

/** A value the flow writes as it is sent: not "{{var}}" (copied) and not "= expr" (computed). */
const literal = (v: unknown) =>
  !isExpression(v) && !(typeof v === 'string' && /^\{\{\s*[\w.]+\s*\}\}$/.test(v));

/** Checks every task's input against its registered input schema. */
export function lintTaskInputs(x: LintInput, w: Walk, report: Report): void {
  for (const { path, task } of w.tasks) {
    const def = Object.hasOwn(x.registry.tasks ?? {}, task.task) ? x.registry.tasks![task.task] : undefined;
    const schema = def && typeof def === 'object' ? def.input : undefined;
    const fields = schema ? objectFields(schema) : undefined;
    if (fields) checkInput(task, fields, path, report, (name) => typeAt(scopeOf(x.flow, x).types, name));
  }
}

/** The kinds a copied variable and a schema field are compared by (others are not compared). */
const SCALAR = new Set(['text', 'number', 'boolean']);
const scalarOf = (t: VarType | undefined) => (t?.kind === 'date' ? 'text' : t?.kind);

/** A `"{{var}}"` whose type check knows, copied into a field of another scalar type: the reason, else undefined. */
function copiedMismatch(value: unknown, field: unknown, typeOf: (name: string) => VarType | undefined) {
  const m = typeof value === 'string' ? /^\{\{\s*([\w.]+)\s*\}\}$/.exec(value) : null;
  if (!m) return undefined;
  const has = scalarOf(typeOf(m[1]!));
  const wants = scalarOf(typeOfZod(field, 'input'));
  if (!has || !wants || !SCALAR.has(has) || !SCALAR.has(wants) || has === wants) return undefined;
  return `copies "${m[1]}", ${describeType({ kind: has } as VarType)}, and the task's schema wants ${describeType({ kind: wants } as VarType)}`;
}

function checkInput(
  task: TaskCall,
  { shape, extra }: NonNullable<ReturnType<typeof objectFields>>,
  path: Path,
  report: Report,
  typeOf: (name: string) => VarType | undefined,
): void {
  const given = task.input ?? {};
  const names = Object.keys(shape);
  const missing = names.filter((n) => !optional(shape[n]) && !Object.hasOwn(given, n));
  for (const [key, value] of Object.entries(given)) {
    if (!Object.hasOwn(shape, key)) {
      if (extra === 'loose') continue;
      const guess = closest(key, missing.length ? missing : names);
      report(
        'unknown-task-input',
        [...path, 'input', key],
        'error',
        `task "${task.task}" has no input field "${key}": ${extra === 'strict' ? 'its schema refuses it' : 'zod would drop it, and the task would never see it'}`,
        guess ? `did you mean "${guess}"?` : `its input fields: ${names.join(', ') || 'none'}`,
        { key: true, ...(guess ? { change: guess } : {}) },
      );
      continue;
    }
    const copied = copiedMismatch(value, shape[key], typeOf);
    if (copied)
      report(
        'task-input-type',
        [...path, 'input', key],
        'error',
        `input "${key}" of task "${task.task}" ${copied}`,
        'save the variable as that type (an input: integer saves a number), or compute the value: "= …"',
      );
    if (!literal(value)) continue;
    const result = (shape[key] as Schema).safeParse(value);
    if (result.success) continue;
    const issue = result.error!.issues[0] as Parameters<typeof issueText>[0];
    report(
      'task-input-type',
      [...path, 'input', key],
      'error',
      `input "${key}${pathText(issue.path)}" of task "${task.task}": ${issueText(issue, value).text}`,
      'write the value the task expects, or copy it from a variable: "{{variable}}"',
    );
  }
  for (const name of missing) {
    const near = Object.keys(given).filter((k) => !Object.hasOwn(shape, k));
    report(
      'missing-task-input',
      task.input ? [...path, 'input'] : [...path, 'task'],
      'error',
      `task "${task.task}" needs the input field "${name}", and the flow does not give it`,
      `add it: input: { ${name}: "{{variable}}" }${near.length && closest(name, near) ? ` (is "${closest(name, near)}" meant to be "${name}"?)` : ''}`,
      { key: !!task.input },
    );
  }
}
