/** The small condition language of flow files: comparisons, all/any/not and registered guards. */
import { evaluateExpression } from './expressions.ts';
import type { Registry } from './registry.ts';
import { relativeDate } from './relative-dates.ts';
import { flowRegex, testFlowRegex } from './safe-regex.ts';
import type { Condition } from './schema-parts.ts';
import { readVar } from './vars.ts';

const COMPARISONS = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'in', 'matches', 'exists'] as const;

/** The operators a condition uses, to check that it has exactly one kind. */
export function conditionShape(c: Condition): { kinds: string[]; comparisons: string[] } {
  const kinds = (['var', 'all', 'any', 'not', 'guard', 'expr'] as const).filter((k) => c[k] !== undefined);
  const comparisons = COMPARISONS.filter((k) => c[k] !== undefined);
  return { kinds, comparisons };
}

function compare(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'number' && a.trim() !== '' && !Number.isNaN(Number(a))) {
    return Number(a) - b;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return undefined;
}

/**
 * Evaluates a condition against the conversation's variables. Unknown or mismatched values are false.
 * `now` is the event's time: guards receive it, and comparisons with `today` / `+30d` resolve on it.
 */
export function evaluateCondition(
  c: Condition,
  vars: Readonly<Record<string, unknown>>,
  locale: string,
  registry: Registry,
  /** The engine's clock at the event, for guards. */
  now: number,
): boolean {
  if (c.all) return c.all.every((x) => evaluateCondition(x, vars, locale, registry, now));
  if (c.any) return c.any.some((x) => evaluateCondition(x, vars, locale, registry, now));
  if (c.not) return !evaluateCondition(c.not, vars, locale, registry, now);
  if (c.guard) {
    const guard = registry.guards[c.guard];
    return guard ? guard({ vars, locale, params: c.params ?? {}, now }) === true : false;
  }
  if (c.expr !== undefined) return evaluateExpression(c.expr, vars, { now, locale }) === true;
  if (c.var === undefined) return false;
  const v = readVar(vars, c.var);
  const cmp = (b: unknown) => compare(v, typeof b === 'string' ? (relativeDate(b, now) ?? b) : b);
  if (c.exists !== undefined && (v !== undefined && v !== null && v !== '') !== c.exists) return false;
  if (c.eq !== undefined && !(v === c.eq || (typeof c.eq === 'number' && cmp(c.eq) === 0))) return false;
  if (c.ne !== undefined && (v === c.ne || (typeof c.ne === 'number' && cmp(c.ne) === 0))) return false;
  if (c.lt !== undefined && !((cmp(c.lt) ?? 0) < 0 && cmp(c.lt) !== undefined)) return false;
  if (c.le !== undefined && !(cmp(c.le) !== undefined && cmp(c.le)! <= 0)) return false;
  if (c.gt !== undefined && !(cmp(c.gt) !== undefined && cmp(c.gt)! > 0)) return false;
  if (c.ge !== undefined && !(cmp(c.ge) !== undefined && cmp(c.ge)! >= 0)) return false;
  if (c.in !== undefined && !c.in.some((x) => x === v)) return false;
  if (c.matches !== undefined && !(typeof v === 'string' && testFlowRegex(flowRegex(c.matches, 'u'), v)))
    return false;
  return true;
}

/** Every guard name a condition uses (for the linter). */
export function guardsOf(c: Condition): string[] {
  return [
    ...(c.guard ? [c.guard] : []),
    ...(c.all ?? []).flatMap(guardsOf),
    ...(c.any ?? []).flatMap(guardsOf),
    ...(c.not ? guardsOf(c.not) : []),
  ];
}

const SIGNS = { eq: '=', ne: '≠', lt: '<', le: '≤', gt: '>', ge: '≥' } as const;

/** A condition as people read it, for graphs and storyboards: `age < 18`, `plan = "pro" or vip`. */
export function conditionText(c: Condition): string {
  const inner = (x: Condition) => {
    const text = conditionText(x);
    return (x.all && x.all.length > 1) || (x.any && x.any.length > 1) ? `(${text})` : text;
  };
  if (c.all) return c.all.map(inner).join(' and ');
  if (c.any) return c.any.map(inner).join(' or ');
  if (c.not) return `not ${inner(c.not)}`;
  if (c.guard) return c.guard;
  if (c.expr !== undefined) return c.expr;
  const name = c.var ?? '?';
  const value = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v));
  const parts: string[] = [];
  for (const op of ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const)
    if (c[op] !== undefined) parts.push(`${name} ${SIGNS[op]} ${value(c[op])}`);
  if (c.in !== undefined) parts.push(`${name} in ${c.in.map(value).join(', ')}`);
  if (c.matches !== undefined) parts.push(`${name} matches /${c.matches}/`);
  if (c.exists !== undefined) parts.push(`${name} ${c.exists ? 'is set' : 'is not set'}`);
  return parts.join(' and ') || name;
}
