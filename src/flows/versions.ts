/**
 * Versions and migrations. A flow's version is the hash of its canonical content (plus the flows it
 * inlines); a human `version:` label is kept in front so that `migrate.from` can name it. Sessions stay
 * on the version they started with unless the new file's `migrate:` block maps their step and context.
 */
import { createHash } from 'node:crypto';
import type { AnyStateMachine } from 'xstate';
import type { FlowFile } from './schema.ts';

/** JSON with sorted keys: the same content always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** `<label>-<hash16>` (or just the hash): the version of a flow and of every flow it calls. */
export function flowVersion(flow: FlowFile, callees: readonly FlowFile[]): string {
  const hash = createHash('sha256')
    .update(canonicalJson({ flow, callees: callees.map((c) => canonicalJson(c)) }))
    .digest('hex')
    .slice(0, 16);
  return flow.version !== undefined ? `${flow.version}-${hash}` : hash;
}

function matchesFrom(from: readonly (string | number)[], version: string): boolean {
  return from.some((f) => {
    if (f === 'any') return true;
    if (typeof f === 'number') return version.startsWith(`${f}-`);
    return version === f || version.startsWith(`${f}-`) || version.split('-').pop()!.startsWith(f);
  });
}

interface PersistedLike {
  value: unknown;
  context: { vars?: Record<string, unknown>; retries?: number; at?: string; mid?: string };
  [k: string]: unknown;
}

/**
 * Maps a persisted snapshot of an older version onto `flow`'s machine, or returns undefined when no
 * `migrate` block covers `fromVersion` or the old step has nowhere to go.
 */
export function migrateSnapshot(
  flow: FlowFile,
  machine: AnyStateMachine,
  fromVersion: string,
  persisted: unknown,
): unknown | undefined {
  const block = flow.migrate?.find((m) => matchesFrom(m.from, fromVersion));
  const old = persisted as PersistedLike;
  if (!block || !old || typeof old !== 'object' || old.status !== 'active') return undefined;
  const oldStep = typeof old.value === 'string' ? old.value : Object.keys(old.value as object)[0];
  if (!oldStep) return undefined;
  const mapped = block.steps?.[oldStep] ?? (flow.steps[oldStep] ? oldStep : block.otherwise);
  if (!mapped || !flow.steps[mapped]) return undefined;
  const vars = { ...(old.context.vars ?? {}) };
  for (const [from, to] of Object.entries(block.context?.rename ?? {})) {
    if (from in vars) {
      vars[to] = vars[from];
      delete vars[from];
    }
  }
  for (const name of block.context?.drop ?? []) delete vars[name];
  Object.assign(vars, block.context?.set ?? {});
  const context = { ...old.context, vars, retries: 0, at: mapped };
  const value = mapped === oldStep && typeof old.value === 'object' ? old.value : mapped;
  try {
    const state = machine.resolveState({ value: value as never, context });
    const keep = (state as { value: unknown }).value;
    return { ...old, value: keep, context, historyValue: {}, children: {} };
  } catch {
    return undefined;
  }
}
