/**
 * Rebuilding a flow version from the source stored with it (flow-source.ts), for sessions pinned to a
 * version whose file has changed since: the engine calls it at start through EngineOptions.rebuildFlow.
 */
import type { FlowDefinition } from '../engine/step/contract.ts';
import { BotflowError } from '../errors/index.ts';
import { parseFlowSourceRecord } from './flow-source.ts';
import { compileSources } from './load.ts';
import { formatProblem } from './problems.ts';
import { EMPTY_REGISTRY, type Registry } from './registry.ts';
import { type Catalog, loadCatalog } from './texts.ts';

/** A stored flow source that cannot give back its version. */
export class FlowRebuildError extends BotflowError {
  override name = 'FlowRebuildError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_FLOW_REBUILD', message, options);
  }
}

/** What rebuilding needs besides the stored source. */
export interface RebuildOptions {
  /** The programmers' validators, guards and effects, looked up by name as when the flow was loaded. */
  registry?: Registry;
}

/**
 * Compiles a stored FlowDefinition.source again. Throws FlowRebuildError when the source is unreadable,
 * no longer compiles (e.g. a validator it names was removed from the registry), or compiles to another
 * version than the one it was stored for.
 */
export function rebuildFlow(source: string, options: RebuildOptions = {}): FlowDefinition {
  let stored: ReturnType<typeof parseFlowSourceRecord>;
  try {
    stored = parseFlowSourceRecord(source);
  } catch (error) {
    throw new FlowRebuildError((error as Error).message);
  }
  const what = `flow "${stored.flow}" version ${stored.version}`;
  const catalogs = new Map<string, Catalog>(
    stored.locales.map((l) => [l.locale, loadCatalog(l.locale, l.file, l.text)]),
  );
  const result = compileSources(stored.files, options.registry ?? EMPTY_REGISTRY, catalogs, stored.baseDir);
  const flow = result.flows.find((f) => f.id === stored.flow);
  if (!flow) {
    const errors = result.problems.filter((p) => p.severity === 'error').slice(0, 3);
    throw new FlowRebuildError(
      `${what} no longer compiles from its stored source: ${errors.map(formatProblem).join('; ') || 'it defines no such flow'}`,
    );
  }
  if (flow.version !== stored.version) {
    throw new FlowRebuildError(
      `${what}: its stored source now compiles to version ${flow.version}, so it is not the version sessions are pinned to`,
    );
  }
  return flow;
}
