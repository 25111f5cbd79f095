/**
 * `botflow check` as a compiler checks names: every read of a variable (`{{var.field}}` in texts and task
 * input, `$var` in Fluent messages, names in `= expressions` and conditions, `options_from`, `with`,
 * `return`) names a variable the flow can see, reads fields its value has (where its shape is known), and
 * is not reached by a path on which the variable is unset (data-flow.ts). Reads are collected here with
 * where they happen; var-reads.ts finds the names in each kind of text.
 */
import { BUILTIN_VARS, type FlowGraph, pathText, setNames, unsetPath } from './data-flow.ts';
import { isExpression } from './expressions.ts';
import { type FlowScope, scopeOf } from './flow-scope.ts';
import type { walkFlow } from './flow-walk.ts';
import type { LintInput, Report } from './lint-input.ts';
import { closest, type Problem } from './problems.ts';
import type { Condition, FlowFile } from './schema.ts';
import { expressionReads, fluentReads, ftlPosition, type NameRead, templateReads } from './var-reads.ts';
import { describeType, fieldType, fluentFields, typeAt, UNKNOWN, type VarType } from './var-types.ts';
import type { Path } from './yaml-source.ts';

type Walk = ReturnType<typeof walkFlow>;
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** Where a read happens: when any of `steps` is entered, after `extra` was set. */
export interface Site {
  steps: string[];
  extra: string[];
}

interface Read {
  path: Path;
  read: NameRead;
  /** What the designer wrote, for messages: `{{slot.tiem}}`, `$nmae`. */
  shown: string;
  site?: Site;
  /** In `options_from`, `item` is an element of the list. */
  item?: VarType;
}

/** The flow-level `computed:` values (name → "= expression"), read defensively. */
export function computedOf(flow: FlowFile): Record<string, string> {
  const c = (flow as { computed?: unknown }).computed;
  return isObj(c)
    ? (Object.fromEntries(Object.entries(c).filter(([, v]) => typeof v === 'string')) as Record<
        string,
        string
      >)
    : {};
}

/** Runs the variable checks of one flow. `push` reports at a place outside the flow file (a catalog). */
export function lintVars(x: LintInput, w: Walk, report: Report, push: (p: Problem) => void): void {
  const { flow } = x;
  const scope = scopeOf(flow, x);
  const computed = computedOf(flow);
  const known = [...scope.types.keys(), ...Object.keys(computed)];
  const reads: Read[] = [];
  const at = (path: Path) => siteOf(flow, scope.graph, path);
  const exprAt = (path: Path, source: string, site: Site | undefined) => {
    for (const r of expressionReads(source))
      reads.push({ path, read: r, shown: [r.name, ...r.fields].join('.'), site });
  };
  const templateAt = (path: Path, text: string, site: Site | undefined, item?: VarType) => {
    for (const r of templateReads(text))
      reads.push({
        path,
        read: r,
        shown: `{{${[r.name, ...r.fields].join('.')}}}`,
        site,
        ...(item ? { item } : {}),
      });
  };

  // Texts: literal {{variables}}, or Fluent messages with $variables.
  for (const t of w.texts) {
    if (t.path[0] === 'texts') continue; // built-in texts get their own placeholders
    const item = itemAt(flow, scope, t.path);
    if (!flow.i18n) templateAt(t.path, t.text, at(t.path), item);
    else if (!/\s/.test(t.text)) fluentAt(x, scope, computed, t.path, t.text, at(t.path), item, reads, push);
  }
  // Computed `set:` values and task inputs, `with:` copies, conditions, options_from, return.
  visitValues(flow, (path, value, key) => {
    if (typeof value !== 'string') return;
    if (key === 'set') {
      const site = at(path.slice(0, -2));
      const before = Object.keys((getAt(flow, path.slice(0, -1)) as Obj) ?? {});
      const earlier = before.slice(0, before.indexOf(String(path.at(-1))));
      if (isExpression(value)) exprAt(path, value, site && { ...site, extra: [...site.extra, ...earlier] });
    } else if (key === 'input') {
      if (isExpression(value)) exprAt(path, value, at(path));
      else templateAt(path, value, at(path));
    } else if (key === 'with' && /^\{\{\s*[\w.]+\s*\}\}$/.test(value)) templateAt(path, value, at(path));
  });
  for (const c of w.conditions) conditionReads(c.condition, c.path, at(c.path), reads);
  for (const [id, step] of Object.entries(flow.steps)) {
    const p = ['steps', id];
    if (step.type === 'input' && step.options_from) {
      const from = step.options_from;
      const site = { steps: [id], extra: [] };
      reads.push({
        path: [...p, 'options_from', 'list'],
        read: { name: from.list.split('.')[0]!, fields: from.list.split('.').slice(1), index: 0 },
        shown: from.list,
        site,
      });
      const item = itemAt(flow, scope, [...p, 'options_from']);
      if (from.value) {
        const [name, ...fields] = from.value.split('.');
        reads.push({
          path: [...p, 'options_from', 'value'],
          read: { name: name!, fields, index: 0 },
          shown: from.value,
          ...(item ? { item } : {}),
        });
      }
      const list = typeAt(scope.types, from.list);
      if (list && list.kind !== 'list' && list.kind !== 'unknown')
        report(
          [...p, 'options_from', 'list'],
          'error',
          `"${from.list}" is ${describeType(list)}, not a list`,
          'options_from.list names a variable holding a list (a task result, a computed value)',
        );
    }
    if (step.type === 'end' && step.return !== undefined)
      [step.return].flat().forEach((r, i) => {
        reads.push({
          path: Array.isArray(step.return) ? [...p, 'return', i] : [...p, 'return'],
          read: { name: r.split('.')[0]!, fields: r.split('.').slice(1), index: 0 },
          shown: r,
          site: { steps: [id], extra: [] },
        });
      });
  }
  for (const [name, source] of Object.entries(computed))
    if (isExpression(source)) exprAt(['computed', name], source, undefined);
  lintComputedCycles(computed, report);

  const seen = new Set<string>();
  const once = (key: string) => !seen.has(key) && !!seen.add(key);
  for (const r of reads) check(r);

  function check(r: Read): void {
    const { name } = r.read;
    const place = r.path;
    let type: VarType | undefined = name === 'item' && r.item ? r.item : scope.types.get(name);
    if (name in computed) type = UNKNOWN;
    if (!type) {
      if (r.shown.startsWith('$')) return; // reported at the catalog
      const guess = closest(name, known);
      if (once(`${place.join('.')}:${name}`))
        x.text !== undefined
          ? push({
              file: x.file,
              ...posOf(x, place, r.read.index, name),
              severity: 'warning',
              message: `unknown variable "${name}"${r.shown !== name ? ` in ${r.shown}` : ''}`,
              hint: guess
                ? `did you mean "${guess}"?`
                : name === 'item'
                  ? 'item is the element of the list only in options_from text and value'
                  : `no step saves it: save it with an input (save: ${name}) or set it (set: { ${name}: … })`,
            })
          : report(
              place,
              'warning',
              `unknown variable "${name}"`,
              guess ? `did you mean "${guess}"?` : undefined,
            );
      return;
    }
    checkFields(r, type);
    if (!r.site || r.read.maybe || name in BUILTIN_VARS || (name === 'item' && r.item)) return;
    for (const v of name in computed ? computedInputs(computed, name) : [name]) {
      if (v in BUILTIN_VARS || !scope.types.has(v)) continue;
      const miss = r.site.steps.find(
        (s) => scope.entry.get(s) && !scope.entry.get(s)!.has(v) && !r.site!.extra.includes(v),
      );
      if (!miss) continue;
      const path = unsetPath(flow, scope.graph, scope.start, v, miss);
      const last = path?.labels.at(-1);
      const when =
        path && path.steps.length > 1
          ? `the person comes to "${miss}" from "${path.steps.at(-2)}"${last && last !== 'valid' ? ` via ${last}` : ''}`
          : `the flow starts at "${miss}"`;
      const plain = r.shown === v || r.shown === `{{${v}}}`;
      if (once(`${place.join('.')}:unset:${v}`))
        report(
          place,
          'warning',
          plain ? `"${v}" is unset when ${when}` : `${r.shown} reads "${v}", which is unset when ${when}`,
          `${path ? `path: ${pathText(path)}; ` : ''}${setters(v)}set ${v} on every path to "${miss}", or read it only where it is set`,
        );
      break;
    }
  }

  /** "it is set at find (done), ask_qty; " */
  function setters(v: string): string {
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

  function checkFields(r: Read, root: VarType): void {
    let t = root;
    const parts = [r.read.name];
    for (const f of r.read.fields) {
      const next = fieldType(t, f);
      if ('type' in next) {
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
              [...where.path, 'task'],
              'note',
              `task "${task}" is a plain function, so the fields of its result "${r.read.name}" are not checked`,
              `give it a result schema: defineTask({ result: z.object({ … }), run })`,
            );
        }
        t = next.type;
        parts.push(f);
        continue;
      }
      const guess = closest(f, next.missing);
      const owner = parts.join('.');
      if (once(`${r.path.join('.')}:${owner}.${f}`))
        x.text !== undefined
          ? push({
              file: x.file,
              ...posOf(x, r.path, r.read.index, `${owner}.${f}`),
              severity: 'error',
              message: next.missing.length
                ? `"${owner}" has no field "${f}"`
                : `"${owner}" is ${describeType(t)}: it has no field "${f}"`,
              hint: guess
                ? `did you mean "${owner}.${guess}"? (${describeType(t)})`
                : next.missing.length
                  ? `its fields: ${next.missing.join(', ')}`
                  : undefined,
            })
          : report(r.path, 'error', `"${owner}" has no field "${f}"`);
      return;
    }
  }
}

/** A Fluent message's `$variables`: unknown names and fields at the catalog's line, unset ones at the text. */
function fluentAt(
  x: LintInput,
  scope: FlowScope,
  computed: Record<string, string>,
  path: Path,
  id: string,
  site: Site | undefined,
  item: VarType | undefined,
  reads: Read[],
  push: (p: Problem) => void,
): void {
  const names = [...scope.types.keys(), ...Object.keys(computed), ...(item ? ['item'] : [])].sort(
    (a, b) => b.length - a.length,
  );
  const locales = x.flow.i18n?.locales ?? [...x.catalogs.keys()];
  const seen = new Set<string>();
  for (const locale of locales) {
    const catalog = x.catalogs.get(locale);
    if (!catalog?.bundle.hasMessage(id)) continue;
    for (const v of fluentReads(catalog, id)) {
      const root = names.find((n) => v.name === n || v.name.startsWith(`${n}_`));
      const where = () => ({ file: catalog.file, ...ftlPosition(catalog, id, v.name) });
      if (!root) {
        const guess = closest(v.name, flatNames(scope.types, names));
        push({
          ...where(),
          severity: 'warning',
          message: `unknown variable $${v.name} in message "${id}" (used by ${x.file})`,
          hint: guess ? `did you mean $${guess}?` : `flow "${x.flow.flow}" never saves or sets ${v.name}`,
        });
        continue;
      }
      const type = root === 'item' ? item! : root in computed ? UNKNOWN : scope.types.get(root)!;
      const fields = fluentFields(type, v.name.slice(root.length + 1));
      if (!fields.ok) {
        const guess = closest(fields.at, fields.missing);
        const base = v.name.slice(0, v.name.length - fields.at.length);
        push({
          ...where(),
          severity: 'error',
          message: `$${v.name} in message "${id}": ${describeType(fields.type)} has no field "${fields.at}"`,
          hint: guess ? `did you mean $${base}${guess}?` : undefined,
        });
        continue;
      }
      if (seen.has(root) || root === 'item') continue;
      seen.add(root);
      reads.push({
        path,
        read: { name: root, fields: [], index: 0, ...(v.maybe ? { maybe: true } : {}) },
        shown: `$${v.name} (message "${id}")`,
        ...(site ? { site } : {}),
      });
    }
  }
}

/** Every name a Fluent message can use: the variables and their fields joined with _ (contact_phone). */
function flatNames(types: Map<string, VarType>, names: string[]): string[] {
  const out = new Set(names);
  const walk = (prefix: string, t: VarType | undefined, depth: number) => {
    if (t?.kind !== 'object' || depth > 3) return;
    for (const [f, ft] of Object.entries(t.fields)) {
      out.add(`${prefix}_${f}`);
      walk(`${prefix}_${f}`, ft, depth + 1);
    }
  };
  for (const n of names) walk(n, types.get(n), 0);
  return [...out];
}

function conditionReads(c: Condition, path: Path, site: Site | undefined, reads: Read[]): void {
  if (typeof c.var === 'string') {
    const [name, ...fields] = c.var.split('.');
    reads.push({
      path: [...path, 'var'],
      read: { name: name!, fields, index: 0, ...(c.exists !== undefined ? { maybe: true } : {}) },
      shown: c.var,
      ...(site ? { site } : {}),
    });
  }
  if (typeof c.expr === 'string')
    for (const r of expressionReads(c.expr))
      reads.push({
        path: [...path, 'expr'],
        read: r,
        shown: [r.name, ...r.fields].join('.'),
        ...(site ? { site } : {}),
      });
  c.all?.forEach((s, i) => {
    conditionReads(s, [...path, 'all', i], site, reads);
  });
  c.any?.forEach((s, i) => {
    conditionReads(s, [...path, 'any', i], site, reads);
  });
  if (c.not) conditionReads(c.not, [...path, 'not'], site, reads);
}

/**
 * Where a read at `path` happens: on entry of its step, or in a route after what the route (and the
 * answer, task result or button press it follows) has set. Commands read at every waiting step.
 */
export function siteOf(flow: FlowFile, g: FlowGraph, path: Path): Site | undefined {
  if (path[0] === 'commands') return { steps: g.waiting, extra: setNames(flow.commands?.[String(path[1])]) };
  if (path[0] === 'defaults' && (path[1] === 'remind' || path[1] === 'idle')) {
    const own = (s: FlowFile['steps'][string]) =>
      path[1] === 'remind' ? 'remind' in s && s.remind : 'idle' in s && s.idle;
    return {
      steps: Object.entries(flow.steps)
        .filter(([, s]) => s.type === 'input' && !own(s))
        .map(([id]) => id),
      extra: [],
    };
  }
  if (path[0] !== 'steps') return undefined;
  const id = String(path[1]);
  const step = flow.steps[id] as Obj | undefined;
  if (!step) return undefined;
  if (path.length >= 4 && (path.at(-1) === 'text' || path.at(-1) === 'value') && path.includes('keyboard'))
    return { steps: [id], extra: [] }; // a button's label is drawn before any press
  const extra: string[] = [];
  const task = ((step.do as unknown[]) ?? []).find((d) => isObj(d) && 'task' in d) as Obj | undefined;
  let node: unknown = step;
  for (let i = 2; i < path.length; i++) {
    const seg = path[i]!;
    if (seg === 'next' && typeof step.save === 'string') extra.push(step.save);
    if (seg === 'next' && task)
      extra.push(...(typeof task.save_as === 'string' ? [task.save_as] : []), ...setNames(task.on_done));
    if (seg === 'on_done' && typeof task?.save_as === 'string') extra.push(task.save_as);
    if (seg === 'on_error' || seg === 'on_timeout') extra.push('task_error');
    node = isObj(node) || Array.isArray(node) ? (node as Obj)[seg as string] : undefined;
    if (i < path.length - 1 && isObj(node)) {
      extra.push(...setNames(node));
      if ('id' in node && node.value !== undefined) extra.push('button_value');
    }
  }
  return { steps: [id], extra };
}

/** The element type of the list an `options_from` reads, for the texts and value under it. */
function itemAt(flow: FlowFile, scope: FlowScope, path: Path): VarType | undefined {
  if (path[0] !== 'steps' || !path.includes('options_from')) return undefined;
  const step = flow.steps[String(path[1])];
  if (step?.type !== 'input' || !step.options_from) return undefined;
  if (path.includes('empty')) return undefined;
  const list = typeAt(scope.types, step.options_from.list);
  return list?.kind === 'list' ? list.item : UNKNOWN;
}

/** The variables a computed value reads, through the computed values it reads. */
function computedInputs(computed: Record<string, string>, name: string, seen = new Set<string>()): string[] {
  if (seen.has(name)) return [];
  seen.add(name);
  return expressionReads(computed[name]!).flatMap((r) =>
    r.name in computed ? computedInputs(computed, r.name, seen) : r.maybe ? [] : [r.name],
  );
}

/** Computed values that read each other in a circle can never be evaluated. */
function lintComputedCycles(computed: Record<string, string>, report: Report): void {
  const state = new Map<string, 'busy' | 'done'>();
  const visit = (name: string, trail: string[]): void => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'busy') {
      const cycle = [...trail.slice(trail.indexOf(name)), name];
      report(
        ['computed', cycle[0]!],
        'error',
        `computed values read each other in a circle: ${cycle.join(' → ')}`,
        'one of them must be computed from variables the flow sets',
      );
      return;
    }
    state.set(name, 'busy');
    for (const r of expressionReads(computed[name]!)) if (r.name in computed) visit(r.name, [...trail, name]);
    state.set(name, 'done');
  };
  for (const name of Object.keys(computed)) visit(name, []);
}

/** Calls `fn` for every value under a `set:`, a task's `input:` and a call's `with:` of the flow's steps and commands. */
function visitValues(
  flow: FlowFile,
  fn: (path: Path, value: unknown, key: 'set' | 'input' | 'with') => void,
): void {
  const visit = (node: unknown, path: Path): void => {
    if (Array.isArray(node)) {
      node.forEach((v, i) => {
        visit(v, [...path, i]);
      });
      return;
    }
    if (!isObj(node)) return;
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'set' || k === 'with' || (k === 'input' && 'task' in node)) && isObj(v))
        for (const [name, value] of Object.entries(v)) fn([...path, k, name], value, k as 'set');
      else visit(v, [...path, k]);
    }
  };
  visit(flow.steps, ['steps']);
  visit(flow.commands, ['commands']);
}

function getAt(data: unknown, path: Path): unknown {
  let cur = data;
  for (const seg of path) cur = isObj(cur) || Array.isArray(cur) ? (cur as Obj)[seg as string] : undefined;
  return cur;
}

/** The position of `needle` (at `index` in the value, when the value is written on one line) in the file. */
function posOf(x: LintInput, path: Path, index: number, needle: string): { line: number; col: number } {
  const p = x.locate.at(path);
  const lines = (x.text ?? '').split('\n');
  const line = lines[p.line - 1] ?? '';
  const found = line.indexOf(needle, p.col - 1 + Math.max(0, index - 2));
  const any = found >= 0 ? found : line.indexOf(needle, p.col - 1);
  return any >= 0 ? { line: p.line, col: any + 1 } : p;
}
