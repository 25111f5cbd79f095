/**
 * `botflow check` as a compiler checks names: every read of a variable (`{{var.field}}` in texts and task
 * input, `$var` in Fluent messages, names in `= expressions` and conditions, `options_from`, `with`,
 * `return`) names a variable the flow can see, reads fields its value has (where its shape is known), and
 * is not reached by a path on which the variable is unset (data-flow.ts). Reads are collected with where
 * they happen in flow-reads.ts.
 */
import { BUILTIN_VARS, pathText, unsetPath } from './data-flow.ts';
import { readsOf } from './flow-reads.ts';
import { type FlowScope, scopeOf } from './flow-scope.ts';
import type { walkFlow } from './flow-walk.ts';
import type { LintInput, Report } from './lint-input.ts';
import { changeTo, closest, type Problem, type Span } from './problems.ts';
import { computedInputs, computedOf, lintComputedCycles, posOf, type Read } from './var-sites.ts';
import { describeType, fieldType, UNKNOWN, type VarType } from './var-types.ts';

type Walk = ReturnType<typeof walkFlow>;

/** Checking the reads of one flow: each problem reported once. */
interface Checker {
  readonly x: LintInput;
  readonly w: Walk;
  readonly scope: FlowScope;
  readonly computed: Record<string, string>;
  /** Every name a read may use: the variables and the computed values. */
  readonly known: string[];
  readonly report: Report;
  readonly push: (p: Problem) => void;
  readonly once: (key: string) => boolean;
}

/** Runs the variable checks of one flow. `push` reports at a place outside the flow file (a catalog). */
export function lintVars(x: LintInput, w: Walk, report: Report, push: (p: Problem) => void): void {
  const scope = scopeOf(x.flow, x);
  const computed = computedOf(x.flow);
  const reads = readsOf(x, w, scope, computed, report, push);
  lintComputedCycles(computed, report);
  const seen = new Set<string>();
  const once = (key: string) => !seen.has(key) && !!seen.add(key);
  const known = [...scope.types.keys(), ...Object.keys(computed)];
  const k: Checker = { x, w, scope, computed, known, report, push, once };
  for (const r of reads) checkRead(k, r);
}

/** A read of a variable the flow can see, of fields its value has, on no path where it is unset. */
function checkRead(k: Checker, r: Read): void {
  const { scope, computed } = k;
  const { name } = r.read;
  let type: VarType | undefined = name === 'item' && r.item ? r.item : scope.types.get(name);
  if (name in computed) type = UNKNOWN;
  if (!type) {
    unknownVariable(k, r);
    return;
  }
  if (!checkFields(k, r, type)) return;
  if (!r.site || r.read.maybe || name in BUILTIN_VARS || (name === 'item' && r.item)) return;
  for (const v of name in computed ? computedInputs(computed, name) : [name]) checkSet(k, r, v);
}

/** Whether `span` is just `name` (found in the text), so a fix may replace it: never a whole value. */
const covers = (span: Span, name: string) =>
  span.endLine === span.line && span.endCol - span.col === name.length;

/** A read of a name no step saves or sets. */
function unknownVariable({ x, known, push, report, once }: Checker, r: Read): void {
  const { name } = r.read;
  const place = r.path;
  if (r.shown.startsWith('$')) return; // reported at the catalog
  const guess = closest(name, known);
  const at = x.text !== undefined ? posOf(x, place, r.read.index, name) : undefined;
  if (once(`${place.join('.')}:${name}`))
    at
      ? push({
          file: x.file,
          ...at,
          code: 'unknown-variable',
          severity: 'warning',
          message: `unknown variable "${name}"${r.shown !== name ? ` in ${r.shown}` : ''}`,
          hint: guess
            ? `did you mean "${guess}"?`
            : name === 'item'
              ? 'item is the element of the list only in options_from text and value'
              : `no step saves it: save it with an input (save: ${name}) or set it (set: { ${name}: … })`,
          ...(guess && covers(at, name) ? { fixes: [changeTo(x.file, at, guess)] } : {}),
        })
      : report(
          'unknown-variable',
          place,
          'warning',
          `unknown variable "${name}"`,
          guess ? `did you mean "${guess}"?` : undefined,
          { within: name, ...(guess ? { change: guess } : {}) },
        );
}

/** A read of `v` reached by a path on which `v` is unset. */
function checkSet({ x, scope, report, once }: Checker, r: Read, v: string): void {
  if (v in BUILTIN_VARS || !scope.types.has(v)) return;
  const miss = r.site!.steps.find(
    (s) => scope.entry.get(s) && !scope.entry.get(s)!.has(v) && !r.site!.extra.includes(v),
  );
  if (!miss) return;
  const path = unsetPath(x.flow, scope.graph, scope.start, v, miss);
  const last = path?.labels.at(-1);
  const when =
    path && path.steps.length > 1
      ? `the person comes to "${miss}" from "${path.steps.at(-2)}"${last && last !== 'valid' ? ` via ${last}` : ''}`
      : `the flow starts at "${miss}"`;
  const plain = r.shown === v || r.shown === `{{${v}}}`;
  if (once(`${r.path.join('.')}:unset:${v}`))
    report(
      'unset-variable',
      r.path,
      'warning',
      plain ? `"${v}" is unset when ${when}` : `${r.shown} reads "${v}", which is unset when ${when}`,
      `${path ? `path: ${pathText(path)}; ` : ''}${setters(scope, v)}set ${v} on every path to "${miss}", or read it only where it is set`,
    );
}

/** "it is set at find (done), ask_qty; " */
function setters(scope: FlowScope, v: string): string {
  const at = [
    ...new Set([
      ...scope.graph.edges
        .filter((e) => e.assigns.has(v))
        .map((e) => (e.label && e.label !== 'valid' ? `${e.from} (${e.label})` : e.from)),
      ...[...scope.graph.onEntry].filter(([, s]) => s.has(v)).map(([id]) => id),
    ]),
  ];
  return at.length ? `it is set at ${at.slice(0, 3).join(', ')}${at.length > 3 ? ', …' : ''}; ` : '';
}

/** A task without a result schema: the fields of its result are not checked (said once, as a note). */
function opaqueTaskNote({ w, scope, report, once }: Checker, r: Read, t: VarType): void {
  if (
    t.kind === 'unknown' &&
    t.why?.startsWith('task ') &&
    scope.graph.opaque.has(r.read.name) &&
    once(`opaque:${r.read.name}`)
  ) {
    const task = scope.graph.opaque.get(r.read.name)!;
    const where = w.tasks.find((k) => k.task.task === task && k.task.save_as === r.read.name);
    if (where)
      report(
        'unchecked-task-result',
        [...where.path, 'task'],
        'note',
        `task "${task}" is a plain function, so the fields of its result "${r.read.name}" are not checked`,
        `give it a result schema: defineTask({ result: z.object({ … }), run })`,
      );
  }
}

/** False when a field is read that the value does not have (reported). */
function checkFields(k: Checker, r: Read, root: VarType): boolean {
  const { x, push, report, once } = k;
  let t = root;
  const parts = [r.read.name];
  for (const f of r.read.fields) {
    const next = fieldType(t, f);
    if ('type' in next) {
      opaqueTaskNote(k, r, t);
      t = next.type;
      parts.push(f);
      continue;
    }
    const guess = closest(f, next.missing);
    const owner = parts.join('.');
    const at = x.text !== undefined ? posOf(x, r.path, r.read.index, `${owner}.${f}`) : undefined;
    if (once(`${r.path.join('.')}:${owner}.${f}`))
      at
        ? push({
            file: x.file,
            ...at,
            code: 'unknown-field',
            severity: 'error',
            message: next.missing.length
              ? `"${owner}" has no field "${f}"`
              : `"${owner}" is ${describeType(t)}: it has no field "${f}"`,
            hint: guess
              ? `did you mean "${owner}.${guess}"? (${describeType(t)})`
              : next.missing.length
                ? `its fields: ${next.missing.join(', ')}`
                : undefined,
            ...(guess && covers(at, `${owner}.${f}`)
              ? { fixes: [changeTo(x.file, at, `${owner}.${guess}`)] }
              : {}),
          })
        : report('unknown-field', r.path, 'error', `"${owner}" has no field "${f}"`);
    return false;
  }
  return true;
}
