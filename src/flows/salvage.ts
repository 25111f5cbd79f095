/**
 * `botflow check` reports every error it can find in one run: when a flow file breaks the schema, the
 * broken parts are cut out (unknown keys dropped, a broken step replaced by a stub (kinds/steps.ts: an `end`), other broken
 * values removed) until what is left fits, so the semantic checks (references, i18n, limits) still run on
 * the rest. The salvaged flow is only ever linted, never compiled.
 */
import { isStub, stubStep } from './kinds/steps.ts';
import { FlowFile } from './schema.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object';

/** A copy of `data` with the parts the schema rejects cut out, or undefined when nothing usable is left. */
export function salvageFlow(data: unknown, schema: typeof FlowFile = FlowFile): FlowFile | undefined {
  if (!isObj(data) || Array.isArray(data)) return undefined;
  let copy: Obj = structuredClone(data);
  for (let round = 0; round < 50; round++) {
    const result = schema.safeParse(copy);
    if (result.success) return result.data;
    let changed = false;
    for (const issue of result.error.issues) {
      const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      if (issue.code === 'unrecognized_keys') {
        const at = getAt(copy, path);
        if (isObj(at)) for (const k of issue.keys) if (k in at) delete at[k];
        changed = true;
        continue;
      }
      if (path[0] === 'steps' && path.length >= 2) {
        const steps = copy.steps as Obj;
        if (isObj(steps) && isObj(steps[path[1]!]) && !isStub(steps[path[1]!] as Obj)) {
          steps[path[1]!] = stubStep();
          changed = true;
        } else if (isObj(steps)) {
          steps[path[1]!] = stubStep();
          changed = changed || path.length > 2;
        }
        continue;
      }
      if (path.length === 0) return undefined;
      const parent = getAt(copy, path.slice(0, -1));
      if (isObj(parent) && path.at(-1)! in parent) {
        if (Array.isArray(parent)) parent.splice(Number(path.at(-1)), 1);
        else delete parent[path.at(-1)!];
        changed = true;
      } else if (path.length === 1) {
        // A required top-level key is missing: without flow, start or steps nothing can be checked.
        if (path[0] === 'steps') copy = { ...copy, steps: {} };
        else if (path[0] === 'start')
          copy = { ...copy, start: Object.keys(isObj(copy.steps) ? copy.steps : {})[0] ?? 'start' };
        else return undefined;
        changed = true;
      }
    }
    if (!changed) return undefined;
  }
  return undefined;
}

function getAt(data: unknown, path: (string | number)[]): unknown {
  let cur = data;
  for (const seg of path) {
    if (!isObj(cur)) return undefined;
    cur = (cur as Obj)[seg];
  }
  return cur;
}
