/**
 * `botflow check` as a compiler checks names: every read of a variable (`{{var.field}}` in texts and task
 * input, `$var` in Fluent messages, names in `= expressions` and conditions, `options_from`, `with`,
 * `return`) names a variable the flow can see, reads fields its value has (where its shape is known), and
 * is not reached by a path on which the variable is unset (data-flow.ts). Reads are collected here with
 * where they happen; var-reads.ts finds the names in each kind of text.
 */
import { BUILTIN_VARS, pathText, unsetPath } from './data-flow.ts';
import { isExpression } from './expressions.ts';
import { type FlowScope, scopeOf } from './flow-scope.ts';
import type { walkFlow } from './flow-walk.ts';
import type { LintInput, Report } from './lint-input.ts';
import { closest, type Problem } from './problems.ts';
import { expressionReads, fluentReads, ftlPosition, templateReads } from './var-reads.ts';
import {
  computedInputs,
  computedOf,
  conditionReads,
  getAt,
  itemAt,
  lintComputedCycles,
  posOf,
  type Read,
  type Site,
  siteOf,
  visitValues,
} from './var-sites.ts';
import { describeType, fieldType, fluentFields, typeAt, UNKNOWN, type VarType } from './var-types.ts';
import type { Path } from './yaml-source.ts';

type Walk = ReturnType<typeof walkFlow>;

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
      const before = Object.keys((getAt(flow, path.slice(0, -1)) as Record<string, unknown>) ?? {});
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
    // A clipboard text and a mini-app payload: {{variables}} filled in when the keyboard is drawn.
    ('keyboard' in step ? (step.keyboard ?? []) : []).forEach((row, r) => {
      row.forEach((b, c) => {
        const site = { steps: [id], extra: [] };
        if (b.clipboard) templateAt([...p, 'keyboard', r, c, 'clipboard'], b.clipboard, site);
        if (b.open_app?.payload)
          templateAt([...p, 'keyboard', r, c, 'open_app', 'payload'], b.open_app.payload, site);
      });
    });
    // A time zone read from a variable ("{{zone}}"), when the answer is read.
    if (step.type === 'input' && step.time_zone?.includes('{{'))
      templateAt([...p, 'time_zone'], step.time_zone, { steps: [id], extra: [] });
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
    if (!checkFields(r, type)) return;
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

  /** False when a field is read that the value does not have (reported). */
  function checkFields(r: Read, root: VarType): boolean {
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
      return false;
    }
    return true;
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
