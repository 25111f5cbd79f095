/**
 * `botflow check` on campaign files (`campaigns/*.campaign.yaml`), and `botflow campaign plan|start` on the
 * one file they take: besides their shape (check-shape.ts),
 * what `botflow campaign start` would only find at send time: the flow it starts is one of the checked
 * flows, the variables it passes are ones that flow reads, the tags and variables of its segment are ones
 * some flow sets, its rate sends something, its quiet hours hold someone, its time zone exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CAMPAIGN_SUFFIX } from '../engine/campaigns/file.ts';
import { MAX_CAMPAIGN_RATE } from '../engine/campaigns/spec.ts';
import { isTimeZone } from '../engine/step/wall-clock.ts';
import { scopeOf } from '../flows/flow-scope.ts';
import { walkFlow } from '../flows/flow-walk.ts';
import { changeTo, closest, lineSpan, type Path, type Problem, type ProblemCode } from '../flows/problems.ts';
import type { Registry } from '../flows/registry.ts';
import type { FlowFile } from '../flows/schema.ts';
import { parseFlowSource } from '../flows/yaml-source.ts';
import { parseCampaignForCheck } from './campaign-check-shape.ts';

/** What the campaigns are checked against: the flows of the flows folder. */
export interface KnownFlows {
  /** Each flow's steps and the words its files (and the flows it calls) mention, by flow id. */
  flows: Map<string, { steps: string[]; reads: Set<string> }>;
  /** Tags some flow sets with `tag:`. */
  tags: Set<string>;
  /** Variables some flow saves or sets (and the built-in ones). */
  vars: Set<string>;
}

/** The flows of `sources` (files that break the schema too, with what is left of them). */
export function knownFlows(
  sources: readonly { file: string; source: string }[],
  registry: Registry,
  /** The locale catalogs' texts: an i18n flow reads `$name` there. */
  catalogs: readonly string[] = [],
): KnownFlows {
  const files = new Map<string, { flow: FlowFile; source: string }>();
  for (const s of sources) {
    const r = parseFlowSource(s.source, s.file);
    const flow = r.flow ?? r.salvaged;
    if (flow?.flow && flow.steps) files.set(flow.flow, { flow, source: s.source });
  }
  const byId = new Map([...files].map(([id, f]) => [id, f.flow]));
  const tags = new Set<string>();
  const vars = new Set<string>();
  const fluent = catalogs.flatMap((c) => [...c.matchAll(/\$([A-Za-z_]\w*)/g)].map((m) => m[1]!));
  const flows: KnownFlows['flows'] = new Map();
  for (const [id, { flow }] of files) {
    collectTags(flow, tags);
    try {
      for (const v of scopeOf(flow, { registry, flows: byId }).types.keys()) vars.add(v);
    } catch {
      // A broken flow's scope cannot be worked out: its variables are not known, and its problems are shown.
    }
    const reads = new Set<string>(flow.i18n ? fluent : []);
    for (const f of [id, ...calledBy(id, byId)]) {
      const source = files.get(f)?.source ?? '';
      for (const m of source.matchAll(/[A-Za-z_]\w*/g)) reads.add(m[0]);
    }
    flows.set(id, { steps: Object.keys(flow.steps), reads });
  }
  return { flows, tags, vars };
}

/** Every flow `id` calls, at any depth. */
function calledBy(id: string, byId: Map<string, FlowFile>, seen = new Set<string>()): string[] {
  const flow = byId.get(id);
  if (!flow) return [];
  for (const c of walkFlow(flow).calls)
    if (!seen.has(c.flow)) {
      seen.add(c.flow);
      calledBy(c.flow, byId, seen);
    }
  return [...seen];
}

/** The values of every `tag:` key of a flow (step keys and `do:` entries). */
function collectTags(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) for (const item of node) collectTags(item, into);
  else if (node && typeof node === 'object')
    for (const [k, v] of Object.entries(node)) {
      if (k === 'tag') for (const t of [v].flat()) if (typeof t === 'string') into.add(t);
      collectTags(v, into);
    }
}

/** The problems of one campaign file's text. */
export function checkCampaignSource(source: string, file: string, known: KnownFlows): Problem[] {
  const parsed = parseCampaignForCheck(source, file);
  const { spec, data, locate } = parsed;
  if (!spec || !data) return parsed.problems;
  const problems = parsed.problems;
  // Names (a variable passed or matched) are shown at their key, values at the value.
  const report: Reporter = (code, path, severity, message, hint, change) => {
    const span = locate.at(path, path[0] === 'with' || path.at(-2) === 'vars');
    const fixes = change === undefined ? undefined : [changeTo(file, span, change)];
    problems.push({
      file,
      ...span,
      code,
      severity,
      message: `${path.join('.')}: ${message}`,
      ...(hint ? { hint } : {}),
      ...(fixes ? { fixes } : {}),
    });
  };
  const guess = (name: string, among: Iterable<string>) => {
    const g = closest(name, among);
    return g ? `did you mean "${g}"? ` : '';
  };
  const ids = [...known.flows.keys()].sort();
  const flow = known.flows.get(spec.flow);
  if (!flow)
    report(
      'unknown-flow',
      ['flow'],
      'error',
      `unknown flow "${spec.flow}": botflow campaign start would refuse it`,
      `${guess(spec.flow, ids)}flows: ${ids.join(', ') || '(none)'}`,
      closest(spec.flow, ids),
    );
  for (const name of Object.keys(spec.with ?? {}))
    if (flow && !flow.reads.has(name))
      report(
        'unused-variable',
        ['with', name],
        'warning',
        `flow ${spec.flow} never reads "${name}"`,
        `${guess(name, flow.reads)}remove it, or read it in the flow ({{${name}}})`,
        closest(name, flow.reads),
      );
  const where = spec.segment.where;
  for (const group of ['all', 'any', 'none'] as const)
    (where.tags?.[group] ?? []).forEach((tag, i) => {
      if (!known.tags.has(tag))
        report(
          'unknown-tag',
          ['segment', 'where', 'tags', group, i],
          'warning',
          `no flow sets the tag "${tag}"`,
          `${guess(tag, known.tags)}tag people in a flow with tag: ${tag}`,
          closest(tag, known.tags),
        );
    });
  for (const name of Object.keys(where.vars ?? {}))
    if (!known.vars.has(name))
      report(
        'unknown-variable',
        ['segment', 'where', 'vars', name],
        'warning',
        `no flow saves the variable "${name}"`,
        `${guess(name, known.vars)}save it with an input (save: ${name}) or set it (set: { ${name}: … })`,
        closest(name, known.vars),
      );
  if (where.flow) {
    const segmentFlow = known.flows.get(where.flow.id);
    if (!segmentFlow)
      report(
        'unknown-flow',
        ['segment', 'where', 'flow', 'id'],
        'warning',
        `unknown flow "${where.flow.id}": nobody matches`,
        `${guess(where.flow.id, ids)}flows: ${ids.join(', ') || '(none)'}`,
        closest(where.flow.id, ids),
      );
    else if (where.flow.ended_at !== undefined && !segmentFlow.steps.includes(where.flow.ended_at))
      report(
        'unknown-step',
        ['segment', 'where', 'flow', 'ended_at'],
        'warning',
        `${where.flow.id} has no step "${where.flow.ended_at}": nobody matches`,
        `${guess(where.flow.ended_at, segmentFlow.steps)}steps: ${segmentFlow.steps.join(', ')}`,
        closest(where.flow.ended_at, segmentFlow.steps),
      );
  }
  checkTiming(spec, data, report, guess);
  return problems.sort((a, b) => a.line - b.line || a.col - b.col);
}

type Spec = NonNullable<ReturnType<typeof parseCampaignForCheck>['spec']>;
/** Reports a problem of the campaign file; `change`: the did-you-mean, offered as a fix. */
type Reporter = (
  code: ProblemCode,
  path: Path,
  severity: Problem['severity'],
  message: string,
  hint?: string,
  change?: string,
) => void;

/** The rate, the quiet hours and the time zone. */
function checkTiming(
  spec: Spec,
  data: Record<string, unknown>,
  report: Reporter,
  guess: (name: string, among: Iterable<string>) => string,
): void {
  const [count, per] = spec.rate.split('/') as [string, 's' | 'min'];
  const perSecond = Number(count) / (per === 'min' ? 60 : 1);
  if (!(perSecond > 0))
    report(
      'zero-rate',
      ['rate'],
      'error',
      `${spec.rate} sends nothing`,
      'give a rate above zero: rate: 10/s',
    );
  else if (perSecond > MAX_CAMPAIGN_RATE)
    report(
      'fast-rate',
      ['rate'],
      'warning',
      `${spec.rate} is above ${MAX_CAMPAIGN_RATE}/s: campaigns never send faster (the platform allows 30 requests a second for everything)`,
      `write ${MAX_CAMPAIGN_RATE}/s or less`,
    );
  const quiet = spec.quiet_hours;
  if (quiet && quiet.from === quiet.to)
    report(
      'empty-quiet-hours',
      ['quiet_hours'],
      'warning',
      `from and to are both ${quiet.from}: nobody is ever held`,
      'give the hours to keep quiet, such as { from: "21:00", to: "09:00" }, or remove quiet_hours',
    );
  if (spec.time_zone !== undefined && !isTimeZone(spec.time_zone))
    report(
      'unknown-time-zone',
      ['time_zone'],
      'error',
      `"${spec.time_zone}" is not a known time zone`,
      `${guess(spec.time_zone, timeZones())}write an IANA time zone name: Europe/Paris`,
      closest(spec.time_zone, timeZones()),
    );
  else if (spec.time_zone !== undefined && !quiet)
    report(
      'unused-setting',
      ['time_zone'],
      'warning',
      'is only used for quiet hours, and there are none',
      'add quiet_hours, or remove time_zone',
    );
  if (data.time_zone_var !== undefined && !quiet)
    report(
      'unused-setting',
      ['time_zone_var'],
      'warning',
      'is only used for quiet hours, and there are none',
      'add quiet_hours, or remove time_zone_var',
    );
}

/**
 * The variables the campaign files of `dir` pass with `with:`, by the flow they start: the flows are
 * checked knowing them (a flow only campaigns start reads `{{code}}` without a warning). Broken files
 * count for nothing here; their problems come from checkCampaigns.
 */
export function campaignStarts(dir: string): Map<string, string[][]> {
  const started = new Map<string, string[][]>();
  if (!existsSync(dir)) return started;
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith(CAMPAIGN_SUFFIX)) continue;
    const { spec } = parseCampaignForCheck(readFileSync(join(dir, name), 'utf8'), name);
    if (!spec) continue;
    started.set(spec.flow, [...(started.get(spec.flow) ?? []), Object.keys(spec.with ?? {})]);
  }
  return started;
}

let zones: string[] | undefined;
function timeZones(): string[] {
  zones ??= (Intl as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return zones;
}

/**
 * The problems of every campaign file of `dir`, or undefined when there is no such folder. YAML files
 * that are not `*.campaign.yaml` are named: `botflow campaign` would not find them by name.
 */
export function checkCampaigns(
  dir: string,
  known: KnownFlows,
): { files: number; problems: Problem[] } | undefined {
  if (!existsSync(dir)) return undefined;
  const shown = (name: string) => relative(process.cwd(), join(dir, name)) || name;
  const names = readdirSync(dir).sort();
  const problems: Problem[] = [];
  let files = 0;
  for (const name of names) {
    if (!/\.ya?ml$/.test(name)) continue;
    if (!name.endsWith(CAMPAIGN_SUFFIX)) {
      problems.push({
        file: shown(name),
        ...lineSpan(readFileSync(join(dir, name), 'utf8'), 1),
        code: 'not-a-campaign-file',
        severity: 'warning',
        message: `${name} is not read: only *${CAMPAIGN_SUFFIX} files are campaigns`,
        hint: `rename it to ${name.replace(/\.ya?ml$/, CAMPAIGN_SUFFIX)}`,
      });
      continue;
    }
    files++;
    problems.push(...checkCampaignSource(readFileSync(join(dir, name), 'utf8'), shown(name), known));
  }
  return { files, problems };
}

/** The texts of `<dir>/locales/*.ftl`: an i18n flow reads campaign variables there (`$code`). */
export function catalogTexts(dir: string): string[] {
  const folder = join(dir, 'locales');
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((n) => n.endsWith('.ftl'))
    .map((n) => readFileSync(join(folder, n), 'utf8'));
}
