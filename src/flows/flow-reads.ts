/**
 * Every read of a variable in a flow, with where it happens and the site it is reached from (lint-vars.ts
 * checks them): texts and Fluent messages, computed values and task inputs, `with:` copies, conditions,
 * keyboards, and what each kind's own fields read (its `reads`: an input's time zone and `options_from`, an
 * end's `return`). var-reads.ts finds the names in each kind of text.
 */
import { isExpression } from './expressions.ts';
import type { FlowScope } from './flow-scope.ts';
import type { walkFlow } from './flow-walk.ts';
import type { StepReads } from './kinds/contract.ts';
import { kindOf } from './kinds/registry.ts';
import type { LintInput, Report } from './lint-input.ts';
import type { Path } from './problems.ts';
import { changeTo, closest, type Problem } from './problems.ts';
import type { Step } from './schema.ts';
import { expressionReads, fluentReads, ftlPosition, ftlSpan, templateReads } from './var-reads.ts';
import { conditionReads, getAt, itemAt, type Read, type Site, siteOf, visitValues } from './var-sites.ts';
import { describeType, fluentFields, typeAt, UNKNOWN, type VarType } from './var-types.ts';

type Walk = ReturnType<typeof walkFlow>;

/** Collecting the reads of one flow: where each happens, and the site it is reached from. */
interface Collector {
  readonly flow: LintInput['flow'];
  readonly scope: FlowScope;
  readonly reads: Read[];
  readonly at: (path: Path) => Site | undefined;
  readonly exprAt: (path: Path, source: string, site: Site | undefined) => void;
  readonly templateAt: (path: Path, text: string, site: Site | undefined, item?: VarType) => void;
}

function collector(flow: LintInput['flow'], scope: FlowScope): Collector {
  const reads: Read[] = [];
  return {
    flow,
    scope,
    reads,
    at: (path: Path) => siteOf(flow, scope.graph, path),
    exprAt: (path: Path, source: string, site: Site | undefined) => {
      for (const r of expressionReads(source))
        reads.push({ path, read: r, shown: [r.name, ...r.fields].join('.'), site });
    },
    templateAt: (path: Path, text: string, site: Site | undefined, item?: VarType) => {
      for (const r of templateReads(text))
        reads.push({
          path,
          read: r,
          shown: `{{${[r.name, ...r.fields].join('.')}}}`,
          site,
          ...(item ? { item } : {}),
        });
    },
  };
}

/** Computed `set:` values and task inputs, `with:` copies. */
function valueReads({ flow, at, exprAt, templateAt }: Collector): void {
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
}

/** A clipboard text and a mini-app payload: {{variables}} filled in when the keyboard is drawn. */
function keyboardReads({ templateAt }: Collector, id: string, step: Step): void {
  const p = ['steps', id];
  ('keyboard' in step ? (step.keyboard ?? []) : []).forEach((row, r) => {
    row.forEach((b, c) => {
      const site = { steps: [id], extra: [] };
      if (b.clipboard) templateAt([...p, 'keyboard', r, c, 'clipboard'], b.clipboard, site);
      if (b.open_app?.payload)
        templateAt([...p, 'keyboard', r, c, 'open_app', 'payload'], b.open_app.payload, site);
    });
  });
}

/** What a kind's `reads` lists a read with (kinds/contract.ts): at the step's entry, or of a list's item. */
function stepReads(k: Collector, id: string, report: Report): StepReads {
  const site = { steps: [id], extra: [] };
  return {
    id,
    template: (path, text) => k.templateAt(path, text, site),
    variable: (path, dotted, item) => {
      const [name, ...fields] = dotted.split('.');
      k.reads.push({
        path,
        read: { name: name!, fields, index: 0 },
        shown: dotted,
        ...(item ? { item } : { site }),
      });
    },
    typeOf: (dotted) => typeAt(k.scope.types, dotted),
    report,
  };
}

/** Every read of a variable in the flow, in the order they are checked. */
export function readsOf(
  x: LintInput,
  w: Walk,
  scope: FlowScope,
  computed: Record<string, string>,
  report: Report,
  push: (p: Problem) => void,
): Read[] {
  const { flow } = x;
  const k = collector(flow, scope);
  // Texts: literal {{variables}}, or Fluent messages with $variables.
  for (const t of w.texts) {
    if (t.path[0] === 'texts') continue; // built-in texts get their own placeholders
    const item = itemAt(flow, scope, t.path);
    if (!flow.i18n) k.templateAt(t.path, t.text, k.at(t.path), item);
    else if (!/\s/.test(t.text))
      fluentAt(x, scope, computed, t.path, t.text, k.at(t.path), item, k.reads, push);
  }
  // Computed `set:` values and task inputs, `with:` copies, conditions, options_from, return.
  valueReads(k);
  for (const c of w.conditions) conditionReads(c.condition, c.path, k.at(c.path), k.reads);
  for (const [id, step] of Object.entries(flow.steps)) {
    keyboardReads(k, id, step);
    kindOf(step).reads?.(step, stepReads(k, id, report));
  }
  for (const [name, source] of Object.entries(computed))
    if (isExpression(source)) k.exprAt(['computed', name], source, undefined);
  return k.reads;
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
      const exact = () => ftlSpan(catalog, id, v.name);
      if (!root) {
        const guess = closest(v.name, flatNames(scope.types, names));
        push({
          ...where(),
          code: 'unknown-variable',
          severity: 'warning',
          message: `unknown variable $${v.name} in message "${id}" (used by ${x.file})`,
          hint: guess ? `did you mean $${guess}?` : `flow "${x.flow.flow}" never saves or sets ${v.name}`,
          ...(guess && exact() ? { fixes: [changeTo(catalog.file, exact()!, `$${guess}`)] } : {}),
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
          code: 'unknown-field',
          severity: 'error',
          message: `$${v.name} in message "${id}": ${describeType(fields.type)} has no field "${fields.at}"`,
          hint: guess ? `did you mean $${base}${guess}?` : undefined,
          ...(guess && exact() ? { fixes: [changeTo(catalog.file, exact()!, `$${base}${guess}`)] } : {}),
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
