/**
 * Flow versions at start: every loaded version is recorded with its source, and versions that running
 * sessions are pinned to but the process did not load are rebuilt from their stored source (or warned
 * about, with what to do).
 */
import type { Logger } from 'pino';
import type { EngineStore } from '../store/ports/engine.ts';
import { andThen, type MaybePromise } from '../store/ports/index.ts';
import type { SessionRow } from '../store/sessions.ts';
import type { FlowDefinition } from './step/contract.ts';
import type { FlowSet } from './step/flow-set.ts';

/**
 * Records the loaded flow versions (with their sources), rebuilds from its stored source every version
 * that running sessions are pinned to and `flows` lacks, and warns about those it cannot rebuild. At once on
 * a synchronous store, else a promise.
 */
export function recordFlowVersions(
  store: EngineStore,
  flows: FlowSet,
  now: number,
  logger?: Logger,
  rebuild?: (source: string) => FlowDefinition,
): MaybePromise<void> {
  const records = flows.all().map((flow) => store.recordFlowVersion(flow.id, flow.version, now, flow.source));
  const recorded = store.synchronous ? undefined : Promise.all(records).then(() => {});
  return andThen(recorded, () =>
    andThen(store.pinnedVersions(), (pinned) => {
      const missing = pinned.filter(({ flowId, flowVersion }) => !flows.get(flowId, flowVersion));
      return andThen(store.flowSources(missing), (sources) => {
        for (const flow of restorePinned(missing, sources, flows, logger, rebuild))
          void store.recordFlowVersion(flow.id, flow.version, now);
      });
    }),
  );
}

/**
 * Adds to `flows` every version in `missing` (pinned by running sessions, not loaded) that its stored
 * source (in `sources`, by `flowId@version`) rebuilds; warns, with what to do, about the others. Returns
 * the versions rebuilt. The same on SQLite (at start) and PostgreSQL (whenever a process meets one).
 */
export function restorePinned(
  missing: readonly { flowId: string; flowVersion: string; n: number }[],
  sources: ReadonlyMap<string, string>,
  flows: FlowSet,
  logger?: Logger,
  rebuild?: (source: string) => FlowDefinition,
): FlowDefinition[] {
  const rebuilt: FlowDefinition[] = [];
  for (const { flowId, flowVersion, n } of missing) {
    const source = sources.get(`${flowId}@${flowVersion}`);
    let why = source === undefined ? 'no source of it is stored' : 'no rebuildFlow was given to the engine';
    if (source !== undefined && rebuild) {
      try {
        const flow = rebuild(source);
        // Plain Error: caught just below, its message becomes the logged reason.
        if (flow.id !== flowId || flow.version !== flowVersion) {
          throw new Error(`its stored source built flow "${flow.id}" version ${flow.version} instead`);
        }
        flows.addPinned(flow);
        rebuilt.push(flow);
        logger?.info(
          { flow: flowId, version: flowVersion, sessions: n },
          `flow "${flowId}" version ${flowVersion} rebuilt from its stored source for ${n} running session(s)`,
        );
        continue;
      } catch (error) {
        why = `its stored source no longer builds: ${(error as Error).message}`;
      }
    }
    const latest = flows.latest(flowId);
    const how = latest?.migrate ? 'will be migrated if the newest version maps them' : 'will fail';
    logger?.warn(
      { flow: flowId, version: flowVersion, sessions: n, reason: why },
      `${n} running session(s) are pinned to flow "${flowId}" version ${flowVersion}, which is not loaded ` +
        `(${why}): their events ${how}. Fix what the old version needs (e.g. restore a removed validator), ` +
        'add a migrate: block for it to the flow file, or end them with engine.sessions.end()',
    );
  }
  return rebuilt;
}

/**
 * For several processes: a function that, given the sessions a batch loaded, rebuilds the versions they
 * are pinned to that `flows` lacks (an older one, or a newer one during a rolling deploy), from the sources
 * `sourcesOf` reads; each version is tried once per process.
 */
export function versionRestorer(
  sourcesOf: (
    versions: { flowId: string; flowVersion: string }[],
  ) => ReadonlyMap<string, string> | Promise<ReadonlyMap<string, string>>,
  flows: FlowSet,
  logger?: Logger,
  rebuild?: (source: string) => FlowDefinition,
): (sessions: Iterable<SessionRow>) => void | Promise<void> {
  const tried = new Set<string>();
  return (sessions) => {
    const missing = new Map<string, { flowId: string; flowVersion: string; n: number }>();
    for (const { flowId, flowVersion, status } of sessions) {
      const key = `${flowId}@${flowVersion}`;
      if (status !== 'active' || tried.has(key) || flows.get(flowId, flowVersion)) continue;
      const entry = missing.get(key) ?? { flowId, flowVersion, n: 0 };
      entry.n++;
      missing.set(key, entry);
    }
    if (missing.size === 0) return;
    const wanted = [...missing.values()];
    const restore = (sources: ReadonlyMap<string, string>) => {
      for (const key of missing.keys()) tried.add(key);
      restorePinned(wanted, sources, flows, logger, rebuild);
    };
    const sources = sourcesOf(wanted);
    return sources instanceof Promise ? sources.then(restore) : restore(sources);
  };
}
