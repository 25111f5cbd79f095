/**
 * Before deploying changed flow files: what would happen to the conversations running now. For each flow
 * version that active sessions are pinned to, against the flows about to be deployed:
 *
 * - `current`: the version is the one deployed: nothing changes;
 * - `migrated`: the new version's `migrate:` block maps them: to which step, how many;
 * - `pinned`: they stay on their old version, rebuilt from the source stored with it;
 * - `stranded`: neither: their next event fails (what to do is said).
 *
 * Reads the database only; `botflow flows plan` prints it.
 */

import type { PlanSources } from '../store/ports/support.ts';
import type { FlowDefinition } from './step/contract.ts';
import { stepName } from './step/step.ts';

export interface PlanRow {
  flowId: string;
  version: string;
  sessions: number;
  outcome: 'current' | 'migrated' | 'pinned' | 'stranded' | 'mixed';
  /** Migrated sessions by the step they land on. */
  movesTo: Record<string, number>;
  /** Sessions staying on the old version. */
  pinned: number;
  stranded: number;
  /** Why sessions stay or are stranded, in words. */
  why?: string;
}

/** The step a snapshot is on: `ask_name`, or `pay>card` inside a called flow. */
const stepOf = (snapshot: unknown): string => stepName((snapshot as { value?: unknown } | null)?.value);

/** What the plan reads of a database (the store's support port: `planSources`). */
export type { PlanSources } from '../store/ports/support.ts';

export function planFlowChange(
  options: PlanSources & {
    flows: readonly FlowDefinition[];
    /** Rebuilds a stored source (flow files: `rebuildFlow` with the project's registry). */
    rebuild: (source: string) => FlowDefinition;
  },
): PlanRow[] {
  const latest = new Map(options.flows.map((f) => [f.id, f]));
  const rows: PlanRow[] = [];
  for (const { flowId, flowVersion: version, n } of options.sessions.activeByVersion()) {
    const row: PlanRow = {
      flowId,
      version,
      sessions: n,
      outcome: 'current',
      movesTo: {},
      pinned: 0,
      stranded: 0,
    };
    rows.push(row);
    const next = latest.get(flowId);
    if (next?.version === version) continue;
    // Can the old version run on? Only if its stored source still builds (validators etc. still there).
    let stays: string | undefined;
    const [stored] = options.versions.sources([{ flowId, version }]);
    if (!stored) stays = 'no source of the old version is stored';
    else {
      try {
        const rebuilt = options.rebuild(stored.source);
        if (rebuilt.id !== flowId || rebuilt.version !== version)
          stays = `its stored source builds version ${rebuilt.version} instead`;
      } catch (error) {
        stays = `its stored source no longer builds: ${(error as Error).message}`;
      }
    }
    for (const { snapshot } of options.sessions.activeSnapshots(flowId, version)) {
      let mapped: unknown;
      try {
        mapped = next?.migrate?.(version, JSON.parse(snapshot));
      } catch {
        mapped = undefined;
      }
      if (mapped !== undefined) {
        const step = stepOf(mapped);
        row.movesTo[step] = (row.movesTo[step] ?? 0) + 1;
      } else if (stays === undefined) row.pinned++;
      else row.stranded++;
    }
    const moved = n - row.pinned - row.stranded;
    const kinds = [moved > 0, row.pinned > 0, row.stranded > 0].filter(Boolean).length;
    row.outcome = kinds > 1 ? 'mixed' : moved > 0 ? 'migrated' : row.pinned > 0 ? 'pinned' : 'stranded';
    if (row.stranded > 0)
      row.why = next
        ? `${stays}, and the new version's migrate: block does not map them`
        : `flow "${flowId}" is no longer in the flows, and ${stays}`;
    else if (row.pinned > 0) row.why = 'rebuilt from the source stored with the old version';
  }
  return rows;
}

/** The plan as lines for people. */
export function describePlan(rows: readonly PlanRow[]): string[] {
  if (rows.length === 0) return ['no conversation is running: nothing to plan'];
  const lines: string[] = [];
  for (const r of rows) {
    const head = `${r.flowId} ${r.version.slice(0, 10)}: ${r.sessions} running`;
    if (r.outcome === 'current') {
      lines.push(`${head}: on the version being deployed, nothing changes`);
      continue;
    }
    const parts: string[] = [];
    const moves = Object.entries(r.movesTo).sort((a, b) => b[1] - a[1]);
    if (moves.length > 0)
      parts.push(
        `${moves.reduce((a, [, k]) => a + k, 0)} move by migrate: (${moves.map(([s, k]) => `${k} to ${s}`).join(', ')})`,
      );
    if (r.pinned > 0) parts.push(`${r.pinned} stay on the old version (${r.why})`);
    if (r.stranded > 0) parts.push(`${r.stranded} STRANDED: ${r.why}`);
    lines.push(`${head}: ${parts.join('; ')}`);
  }
  const stranded = rows.reduce((a, r) => a + r.stranded, 0);
  lines.push(
    stranded > 0
      ? `${stranded} conversation(s) would be stranded: add a migrate: block for their version to the flow file ` +
          '(docs/flows.md, versions), restore what the old version needs, or end them first'
      : 'no conversation would be stranded',
  );
  return lines;
}
