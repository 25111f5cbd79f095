/**
 * A segment as SQL, once for both databases: the people (dialog sessions, one per person) it matches,
 * people who left always excluded. The text uses `?` placeholders; PostgreSQL's adapter numbers them.
 * Variable names and values are always bound, never written into the text.
 */
import type { Segment, VarCondition } from './types.ts';

export type Dialect = 'sqlite' | 'postgres';

/** A statement and its parameters. */
export interface Sql {
  text: string;
  params: unknown[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** True when `name` can be a variable of a segment (letters, digits, _). */
export const isVarName = (name: string) => NAME.test(name);

/** The expression of saved variable `name` of the latest session (its JSON value), and its parameter. */
function varExpr(d: Dialect, name: string): { expr: string; param: unknown } {
  return d === 'sqlite'
    ? { expr: 'json_extract(s.snapshot, ?)', param: `$.context.vars.${name}` }
    : { expr: '(s.snapshot::jsonb #> ?::text[])', param: ['context', 'vars', name] };
}

/** The text value of saved variable `name` (for the time zone), as SQL. */
export function varText(d: Dialect, name: string | undefined): Sql {
  if (!name) return { text: 'NULL', params: [] };
  return d === 'sqlite'
    ? { text: 'json_extract(s.snapshot, ?)', params: [`$.context.vars.${name}`] }
    : { text: '(s.snapshot::jsonb #>> ?::text[])', params: [['context', 'vars', name]] };
}

/** A JSON value as the database compares it to an extracted one. */
function bound(d: Dialect, value: string | number | boolean): { sql: string; param: unknown } {
  if (d === 'postgres') return { sql: '?::jsonb', param: JSON.stringify(value) };
  return { sql: '?', param: typeof value === 'boolean' ? Number(value) : value };
}

/** `x` has the JSON type of `value` (so that 30 is never compared with "30"). */
function sameType(d: Dialect, name: string, value: number | string): Sql {
  const { expr, param } = varExpr(d, name);
  if (d === 'postgres') {
    return {
      text: `jsonb_typeof(${expr}) = ?`,
      params: [param, typeof value === 'number' ? 'number' : 'string'],
    };
  }
  const types = typeof value === 'number' ? "('integer', 'real')" : "('text')";
  return { text: `json_type(s.snapshot, ?) IN ${types}`, params: [param] };
}

function varCondition(d: Dialect, name: string, cond: VarCondition): Sql[] {
  const { expr, param } = varExpr(d, name);
  if (cond === null) return [{ text: `${expr} IS NULL`, params: [param] }];
  if (typeof cond !== 'object') {
    const b = bound(d, cond);
    const typed = typeof cond === 'boolean' && d === 'sqlite' ? [sameBool(name)] : [];
    return [{ text: `${expr} = ${b.sql}`, params: [param, b.param] }, ...typed];
  }
  const out: Sql[] = [];
  for (const [op, value] of [
    ['>', cond.gt],
    ['<', cond.lt],
  ] as const) {
    if (value === undefined) continue;
    const b = bound(d, value);
    out.push(sameType(d, name, value), { text: `${expr} ${op} ${b.sql}`, params: [param, b.param] });
  }
  if (cond.in) {
    if (cond.in.length === 0) return [{ text: '1 = 0', params: [] }];
    const ors = cond.in.map((v) => bound(d, v));
    out.push({
      text: `(${ors.map((b) => `${expr} = ${b.sql}`).join(' OR ')})`,
      params: ors.flatMap((b) => [param, b.param]),
    });
  }
  return out;
}

/** SQLite stores true as 1: a boolean condition also asks for a JSON boolean. */
function sameBool(name: string): Sql {
  return { text: "json_type(s.snapshot, ?) IN ('true', 'false')", params: [`$.context.vars.${name}`] };
}

const list = (items: readonly unknown[]) => items.map(() => '?').join(', ');
const tagExists = (tags: readonly string[]): Sql => ({
  text: `EXISTS (SELECT 1 FROM person_tags t WHERE t.conversation_key = s.conversation_key AND t.tag IN (${list(tags)}))`,
  params: [...tags],
});

/** The conditions of `segment` at `now`, joined with AND (people who left are always left out). */
export function segmentWhere(d: Dialect, segment: Segment, now: number): Sql {
  const parts: Sql[] = [
    { text: "s.conversation_key LIKE 'u:%' AND s.user_id IS NOT NULL", params: [] },
    {
      text: 'NOT EXISTS (SELECT 1 FROM people_left l WHERE l.conversation_key = s.conversation_key AND l.left_at >= s.updated_at)',
      params: [],
    },
  ];
  const { tags, vars, locale, flow } = segment;
  for (const tag of tags?.all ?? []) parts.push(tagExists([tag]));
  if (tags?.any?.length) parts.push(tagExists(tags.any));
  if (tags?.none?.length) {
    const e = tagExists(tags.none);
    parts.push({ text: `NOT ${e.text}`, params: e.params });
  }
  for (const [name, cond] of Object.entries(vars ?? {})) {
    if (!isVarName(name)) throw new Error(`"${name}" is not a variable name`);
    parts.push(...varCondition(d, name, cond));
  }
  if (locale?.length) parts.push({ text: `s.locale IN (${list(locale)})`, params: [...locale] });
  if (segment.activeWithinMs !== undefined)
    parts.push({ text: 's.updated_at >= ?', params: [now - segment.activeWithinMs] });
  if (segment.inactiveForMs !== undefined)
    parts.push({ text: 's.updated_at <= ?', params: [now - segment.inactiveForMs] });
  if (flow) parts.push(...flowConditions(flow));
  return { text: parts.map((p) => `(${p.text})`).join(' AND '), params: parts.flatMap((p) => p.params) };
}

/**
 * How a flow went for them, from the step log (every session of theirs, not only the latest). Each is an
 * uncorrelated `IN (…)`: the step log (no index but its id) is read once per segment, not once per person.
 */
function flowConditions(flow: NonNullable<Segment['flow']>): Sql[] {
  const of = (where: string) =>
    `s.conversation_key IN (SELECT g.conversation_key FROM step_log g WHERE g.flow_id = ?${where})`;
  const out: Sql[] = [];
  if (flow.finished === true) out.push({ text: of(" AND g.event = 'finish'"), params: [flow.id] });
  if (flow.finished === false)
    out.push({ text: `${of('')} AND NOT ${of(" AND g.event = 'finish'")}`, params: [flow.id, flow.id] });
  if (flow.endedAt !== undefined)
    out.push({
      text:
        's.conversation_key IN (SELECT x.conversation_key FROM (SELECT g.conversation_key, g.step, g.event, ' +
        'row_number() OVER (PARTITION BY g.conversation_key ORDER BY g.id DESC) AS n FROM step_log g ' +
        "WHERE g.flow_id = ? AND g.event IN ('enter', 'finish', 'stop')) x WHERE x.n = 1 AND x.step = ? AND x.event <> 'finish')",
      params: [flow.id, flow.endedAt],
    });
  if (flow.finished === undefined && flow.endedAt === undefined)
    out.push({ text: of(''), params: [flow.id] });
  return out;
}

/** `?` placeholders numbered `$1, $2, …` for PostgreSQL. */
export function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}
