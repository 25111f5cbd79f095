/**
 * Loading a folder of flows: `<dir>/*.flow.yaml`, catalogs in `<dir>/locales/<locale>.ftl`, and the
 * programmers' registry from `<dir>/registry.ts` (unless one is passed). Every file is parsed, checked
 * and compiled; a file with errors is left out and its problems are returned.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { buildDefinition } from './compile.ts';
import { describeFlowSource, type FlowSource } from './flow-source.ts';
import { walkFlow } from './flow-walk.ts';
import { importCode } from './import-code.ts';
import { kindsUsed, projectKinds, versionWithKinds } from './kinds/custom-adapter.ts';
import { lintFlow } from './lint.ts';
import { foldUnderRegistry, lintTriggerClashes } from './lint-flow-set.ts';
import type { LintInput } from './lint-input.ts';
import { hasErrors, lineSpan, type Problem } from './problems.ts';
import { budgeted, EMPTY_REGISTRY, type Registry, type SlowCall } from './registry.ts';
import type { FlowFile } from './schema.ts';
import { type Catalog, loadCatalog } from './texts.ts';
import { flowVersion } from './versions.ts';
import { type Locator, type ParsedFlowFile, parseFlowSource } from './yaml-source.ts';

export const FLOW_SUFFIX = '.flow.yaml';

export interface LoadOptions {
  /** Validators, guards and effects; default: the default export of `<dir>/registry.ts`, if any. */
  registry?: Registry;
  /** Catalogs by locale; default: `<dir>/locales/*.ftl`. */
  locales?: Map<string, Catalog>;
  /** Times every validator, guard and effect call; those over `ms` are reported (see `budgeted`). */
  codeBudget?: { ms: number; report(slow: SlowCall): void };
  /** Campaigns' `with:` variables by the flow they start (`botflow check` reads the campaign files). */
  started?: LintInput['started'];
}

export interface LoadResult {
  flows: FlowDefinition[];
  problems: Problem[];
  /** The programmers' registry the flows were compiled with (loadFlows), for `rebuildFlow` later. */
  registry?: Registry;
}

export type { FlowSource } from './flow-source.ts';

/** Reads the catalogs of `<dir>/locales`. */
export function loadLocales(dir: string): Map<string, Catalog> {
  const catalogs = new Map<string, Catalog>();
  const folder = join(dir, 'locales');
  if (!existsSync(folder)) return catalogs;
  for (const name of readdirSync(folder).sort()) {
    if (!name.endsWith('.ftl')) continue;
    const file = join(folder, name);
    catalogs.set(
      name.slice(0, -4),
      loadCatalog(name.slice(0, -4), relative(process.cwd(), file), readFileSync(file, 'utf8')),
    );
  }
  return catalogs;
}

/**
 * Imports `<dir>/registry.ts` (its default export), or returns the empty registry when there is none.
 * A registry that fails to load is a problem at its first line, not a crash.
 */
export async function loadRegistry(dir: string): Promise<{ registry: Registry; problems: Problem[] }> {
  for (const name of ['registry.ts', 'registry.js']) {
    const file = resolve(dir, name);
    if (!existsSync(file)) continue;
    try {
      const mod = await importCode(file);
      const registry = (mod.default ?? mod.registry) as Registry | undefined;
      if (registry?.validators && registry.guards && registry.effects) return { registry, problems: [] };
      return {
        registry: EMPTY_REGISTRY,
        problems: [registryProblem(file, 'has no default export made by defineRegistry()')],
      };
    } catch (error) {
      return {
        registry: EMPTY_REGISTRY,
        problems: [
          registryProblem(
            file,
            `cannot be loaded: ${(error as Error).message.split('\n')[0]}`,
            (error as { hint?: string }).hint,
          ),
        ],
      };
    }
  }
  return { registry: EMPTY_REGISTRY, problems: [] };
}

/** A file's text, or undefined when it cannot be read (a problem then points at its first line). */
function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function registryProblem(file: string, what: string, hint = REGISTRY_HINT): Problem {
  return {
    file: relative(process.cwd(), file) || file,
    ...lineSpan(readText(file), 1),
    code: 'registry',
    severity: 'error',
    message: `the registry ${what}`,
    hint,
  };
}

const REGISTRY_HINT =
  "import { defineRegistry } from 'botflow-engine'; export default defineRegistry({ validators, guards, effects, tasks })";

/** How an editor checks as the designer types (botflow lsp): the same problems, sooner. */
export interface CheckOnly {
  /** Only check: no flow is compiled (`flows` is empty). */
  checkOnly: true;
  /**
   * Parsed files kept between checks, by file: a file whose text (and the registry's kinds) did not change
   * is not parsed again. Parsing is read-only for the checks, so a parse can be shared.
   */
  parsed?: Map<string, { source: string; kinds: unknown; result: ParsedFlowFile }>;
}

/** Parses, checks and compiles a set of flow sources that may call each other. */
export function compileSources(
  sources: readonly FlowSource[],
  registry: Registry,
  catalogs: Map<string, Catalog>,
  /** Folder that media paths in the flows are relative to (default: the current directory). */
  baseDir = '.',
  started?: LintInput['started'],
  editor?: CheckOnly,
): LoadResult {
  const problems: Problem[] = [];
  const parsed: { file: string; text: string; flow: FlowFile; locate: Locator }[] = [];
  const salvaged: { file: string; text: string; flow: FlowFile; locate: Locator }[] = [];
  // The project's own kinds of step (defineStepKind): validated with their schemas, attached to their steps.
  const kinds = projectKinds(registry);
  for (const s of sources) {
    const r = parseCached(s, kinds, editor?.parsed);
    problems.push(...r.problems);
    if (r.flow) parsed.push({ file: s.file, text: s.source, flow: r.flow, locate: r.locate });
    else if (r.salvaged) salvaged.push({ file: s.file, text: s.source, flow: r.salvaged, locate: r.locate });
  }
  problems.push(...lintTriggerClashes([...parsed, ...salvaged]));
  const fileOf = new Map(parsed.map((p) => [p.flow.flow, { file: p.file, source: p.text }]));
  const byId = new Map(parsed.map((p) => [p.flow.flow, p.flow]));
  // A broken flow's callers do not also report it as unknown (they are not compiled either).
  for (const p of salvaged) if (!byId.has(p.flow.flow)) byId.set(p.flow.flow, p.flow);
  const lintOne = (p: (typeof salvaged)[number]) => {
    const name = basename(p.file);
    const stem = name.endsWith(FLOW_SUFFIX) ? name.slice(0, -FLOW_SUFFIX.length) : undefined;
    return lintFlow({
      ...p,
      registry,
      catalogs,
      flows: byId,
      expectedId: stem,
      baseDir,
      ...(started ? { started } : {}),
    });
  };
  const good = new Set<string>();
  for (const p of parsed) {
    const own = lintOne(p);
    problems.push(...own);
    if (!hasErrors(own)) good.add(p.flow.flow);
  }
  // Files the schema rejected still get the semantic checks on what is left of them (errors only:
  // the cut-out parts would make warnings such as "unreachable" misleading).
  for (const p of salvaged) problems.push(...lintOne(p).filter((x) => x.severity === 'error'));
  const flows: FlowDefinition[] = [];
  for (const p of editor?.checkOnly ? [] : parsed) {
    const callees = calleesOf(p.flow, byId);
    if (!good.has(p.flow.flow) || callees.some((c) => !good.has(c.flow))) continue;
    // A project kind's `version` is part of the flow's: its code is not stored with the flow's source.
    const version = versionWithKinds(flowVersion(p.flow, callees), kindsUsed([p.flow, ...callees]));
    const definition = buildDefinition(p.flow, {
      registry,
      catalogs,
      flows: byId,
      version,
      baseDir: resolve(baseDir),
    });
    const source = describeFlowSource({
      flow: p.flow,
      version,
      files: [p.flow, ...callees].map((f) => fileOf.get(f.flow)!),
      usesI18n: [p.flow, ...callees].some((f) => f.i18n !== undefined),
      catalogs,
      baseDir: resolve(baseDir),
    });
    // Set on the definition itself: its recovery reads `source` to say where a failing step is written.
    if (source !== undefined) definition.source = source;
    flows.push(definition);
  }
  // A catalog's problem is found once per flow using the message: keep one.
  const unique = [...new Map(problems.map((p) => [JSON.stringify(p), p])).values()];
  unique.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col);
  return { flows, problems: unique };
}

function parseCached(s: FlowSource, kinds: ReturnType<typeof projectKinds>, cache?: CheckOnly['parsed']) {
  const kept = cache?.get(s.file);
  if (kept && kept.source === s.source && kept.kinds === kinds) return kept.result;
  const result = parseFlowSource(s.source, s.file, kinds);
  cache?.set(s.file, { source: s.source, kinds, result });
  return result;
}

function calleesOf(flow: FlowFile, byId: Map<string, FlowFile>, seen = new Set<string>()): FlowFile[] {
  const out: FlowFile[] = [];
  for (const c of walkFlow(flow).calls) {
    const f = byId.get(c.flow);
    if (!f || seen.has(c.flow)) continue;
    seen.add(c.flow);
    out.push(f, ...calleesOf(f, byId, seen));
  }
  return out;
}

/** Compiles one flow file's text on its own (it may not call other flows). */
export function compileFlow(
  source: string,
  file: string,
  registry: Registry = EMPTY_REGISTRY,
  locales: Map<string, Catalog> = new Map(),
): { flow?: FlowDefinition; problems: Problem[] } {
  const r = compileSources([{ file, source }], registry, locales);
  return { flow: r.flows[0], problems: r.problems };
}

/** Reads the flow files of a folder, sorted by name. */
export function readFlowSources(dir: string): FlowSource[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith(FLOW_SUFFIX))
    .sort()
    .map((n) => {
      const path = join(dir, n);
      return { file: relative(process.cwd(), path) || path, source: readFileSync(path, 'utf8') };
    });
}

/** Loads, checks and compiles every flow of a folder. */
export async function loadFlows(dir: string, options: LoadOptions = {}): Promise<LoadResult> {
  const loaded = options.registry ? { registry: options.registry, problems: [] } : await loadRegistry(dir);
  if (options.codeBudget)
    loaded.registry = budgeted(loaded.registry, options.codeBudget.ms, options.codeBudget.report);
  const catalogs = options.locales ?? loadLocales(dir);
  const result = compileSources(readFlowSources(dir), loaded.registry, catalogs, dir, options.started);
  // A registry that did not load makes every name the flows take from it unknown: one error, not many.
  const folded = foldUnderRegistry(loaded.problems, result.problems);
  return {
    flows: result.flows,
    problems: [...folded.registry, ...misnamedFiles(dir), ...catalogProblems(catalogs), ...folded.rest],
    registry: loaded.registry,
  };
}

/** The catalogs' entries Fluent cannot read, each at its lines (loadFlows, botflow lsp). */
export function catalogProblems(catalogs: ReadonlyMap<string, Catalog>): Problem[] {
  return [...catalogs.values()].flatMap((c) =>
    c.broken.map(
      (line): Problem => ({
        file: c.file,
        ...lineSpan(c.text, line),
        code: 'broken-fluent-entry',
        severity: 'error',
        message: 'Fluent cannot read this entry, so it is left out of the catalog',
        hint: 'write `id = text`; continuation lines are indented; comments start with #',
      }),
    ),
  );
}

/** YAML files in the folder that are not read because their name does not end in .flow.yaml. */
function misnamedFiles(dir: string): Problem[] {
  if (!existsSync(dir)) return [];
  return (
    readdirSync(dir)
      .filter((n) => /\.ya?ml$/.test(n) && !n.endsWith(FLOW_SUFFIX))
      // Transcripts (*.test.yaml) and configuration files (botflow.config*.yaml) live here too: not flows.
      .filter((n) => !/\.test\.ya?ml$/.test(n) && !/^botflow\.config/.test(n))
      .map((n) => ({
        file: relative(process.cwd(), join(dir, n)) || n,
        ...lineSpan(readText(join(dir, n)), 1),
        code: 'not-a-flow-file' as const,
        severity: 'warning' as const,
        message: `${n} is not read: only *${FLOW_SUFFIX} files are flows`,
        hint: `rename it to ${n.replace(/\.ya?ml$/, FLOW_SUFFIX)}`,
      }))
  );
}

/** The problems of every flow of a folder (what `botflow check` prints). */
export async function checkFlows(dir: string, options: LoadOptions = {}): Promise<Problem[]> {
  return (await loadFlows(dir, options)).problems;
}
