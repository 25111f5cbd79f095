/**
 * A campaign file's shape as `botflow check` reports it: YAML syntax, unknown keys (with the closest key of
 * that place), missing keys and values that do not fit, each at its `file:line:col` with what to do, in
 * the words the flow files' shape messages use.
 */
import { z } from 'zod';
import { CampaignSpec, parseCampaignSpec } from '../engine/campaigns/spec.ts';
import {
  changeTo,
  closest,
  type Locator,
  lineSpan,
  type Path,
  type Problem,
  type ProblemCode,
} from '../flows/problems.ts';
import { readYaml } from '../flows/yaml-source.ts';

/** A campaign file read for checking: its spec when the shape is right, and where its values are. */
export interface ParsedCampaign {
  spec?: z.output<typeof CampaignSpec>;
  /** The values as written (no defaults filled in). */
  data?: Record<string, unknown>;
  problems: Problem[];
  locate: Locator;
}

/** What to write, by the last key of the value's path. */
const WRITE: Record<string, string> = {
  rate: 'write N/s or N/min: rate: 10/s',
  from: 'write a time of day in quotes: "21:00"',
  to: 'write a time of day in quotes: "09:00"',
  active_within: 'write a number and a unit (ms, s, m, h, d): 30d',
  inactive_for: 'write a number and a unit (ms, s, m, h, d): 7d',
  per: 'write a number and a unit (ms, s, m, h, d): 7d',
  busy: 'write a number and a unit (ms, s, m, h, d): 30m',
  start_at: 'write an ISO time with its offset: 2026-04-01T09:00:00+02:00',
  name: 'lower-case letters, digits, _ and -, or leave name out to use the file name',
  max: 'write a whole number, 1 or more',
};

/** Parses and shape-checks the text of campaign file `file`. */
export function parseCampaignForCheck(source: string, file: string): ParsedCampaign {
  const { doc, locate, problems } = readYaml(source, file);
  if (problems.length) return { problems, locate };
  const data = doc.toJS() as unknown;
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    problems.push({
      file,
      ...lineSpan(source, 1),
      code: 'schema',
      severity: 'error',
      message: 'a campaign file is a set of keys (flow, segment, rate, …)',
      hint: 'start with the flow it starts: flow: <flow id>',
    });
    return { problems, locate };
  }
  const parsed = parseCampaignSpec(data);
  if (parsed.ok) return { spec: parsed.spec, data: data as Record<string, unknown>, problems, locate };
  // A required key written misspelt is reported once, as the unknown key with its guess.
  const misspelt = new Set(
    parsed.issues.flatMap((i) =>
      i.code === 'unrecognized_keys'
        ? i.keys.map((k) => [...i.path, closest(k, keysAt(i.path as Path))].join('.'))
        : [],
    ),
  );
  for (const issue of parsed.issues) {
    if (issue.code === 'invalid_type' && getAt(data, issue.path as Path) === undefined)
      if (misspelt.has(issue.path.join('.'))) continue;
    problems.push(issueProblem(issue, data, file, locate));
  }
  problems.sort((a, b) => a.line - b.line || a.col - b.col);
  return { data: data as Record<string, unknown>, problems, locate };
}

function issueProblem(issue: z.core.$ZodIssue, data: unknown, file: string, locate: Locator): Problem {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const where = path.length ? `${path.join('.')}: ` : '';
  const last = path.at(-1);
  const code: ProblemCode =
    issue.code === 'unrecognized_keys'
      ? 'unknown-key'
      : getAt(data, path) === undefined
        ? 'missing-key'
        : issue.code === 'invalid_type' || issue.code === 'invalid_union'
          ? 'wrong-type'
          : 'schema';
  const at = (p: Path, message: string, hint?: string, key = false, change?: string): Problem => {
    const span = locate.at(p, key);
    const fixes = change === undefined ? undefined : [changeTo(file, span, change)];
    return {
      file,
      ...span,
      code,
      severity: 'error',
      message: `${where}${message}`,
      ...(hint ? { hint } : {}),
      ...(fixes ? { fixes } : {}),
    };
  };
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const known = keysAt(path);
    const guess = closest(key, known);
    return at(
      [...path, key],
      `unknown key "${key}"`,
      guess ? `did you mean "${guess}"?` : `allowed here: ${known.join(', ')}`,
      true,
      guess,
    );
  }
  const value = getAt(data, path);
  if (value === undefined)
    return at(
      path,
      'is required',
      `add "${String(last)}"${last === 'flow' ? ': the id of the flow to start' : ''}`,
      true,
    );
  const hint = typeof last === 'string' ? WRITE[last] : undefined;
  if (issue.code === 'invalid_type' || issue.code === 'invalid_union')
    return at(
      path,
      `expected ${issue.code === 'invalid_type' ? kindOf(issue.expected) : 'another value'}, not ${describe(value)}`,
      hint,
    );
  if (issue.code === 'too_small')
    return Array.isArray(value)
      ? at(path, 'is empty', 'list at least one, or leave it out')
      : at(path, `${describe(value)} is less than ${String(issue.minimum)}`, hint);
  // The format's own words ("a rate such as 10/s or 300/min") say what is expected.
  const expected = /^an? /.test(issue.message) && !/^a \w+ is /.test(issue.message);
  return at(path, `${describe(value)}${expected ? ' is not ' : ': '}${issue.message}`, hint);
}

let schema: JsonNode | undefined;
type JsonNode = { properties?: Record<string, JsonNode>; anyOf?: JsonNode[]; additionalProperties?: unknown };

/** The keys the campaign format allows at `path`. */
function keysAt(path: Path): string[] {
  schema ??= z.toJSONSchema(CampaignSpec, { io: 'input', unrepresentable: 'any' }) as JsonNode;
  let node: JsonNode | undefined = schema;
  for (const seg of path) {
    const objects: JsonNode[] = node?.anyOf?.filter((o) => o.properties) ?? (node ? [node] : []);
    node = objects.map((o) => o.properties?.[String(seg)]).find(Boolean);
  }
  const objects = node?.anyOf?.filter((o) => o.properties) ?? (node ? [node] : []);
  return Object.keys(objects[0]?.properties ?? {});
}

function kindOf(expected: string): string {
  if (expected === 'string') return 'a text';
  if (expected === 'number' || expected === 'int') return 'a number';
  if (expected === 'array') return 'a list';
  if (expected === 'object' || expected === 'record') return 'a set of keys';
  return expected;
}

function describe(v: unknown): string {
  if (v === null) return 'nothing (null)';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return `{ ${Object.keys(v as object).join(', ')} }`;
  if (typeof v === 'string') return `"${v}"`;
  return String(v);
}

/** The value at `path` of parsed YAML. */
function getAt(data: unknown, path: Path): unknown {
  let cur = data;
  for (const seg of path)
    cur = cur && typeof cur === 'object' ? (cur as Record<string | number, unknown>)[seg] : undefined;
  return cur;
}
