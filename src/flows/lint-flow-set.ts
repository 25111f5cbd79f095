/** Checks across the flows of a folder: two flows must not start on the same trigger. */
import type { Locator, Problem, ProblemCode } from './problems.ts';
import type { FlowFile } from './schema.ts';

interface Parsed {
  file: string;
  flow: FlowFile;
  locate: Locator;
}

/** What a trigger starts on, as a key two flows must not share (keywords may overlap on purpose). */
function triggerKey(
  t: NonNullable<FlowFile['triggers']>[number],
): { key: string; shown: string } | undefined {
  if (t.bot_started !== undefined) {
    const payload = typeof t.bot_started === 'object' ? t.bot_started.payload : undefined;
    return payload === undefined
      ? { key: 'bot_started', shown: 'bot_started' }
      : { key: `bot_started:${payload}`, shown: `bot_started with payload "${payload}"` };
  }
  if (t.command !== undefined) {
    const name = t.command.replace(/^\//, '').toLowerCase();
    return { key: `command:${name}`, shown: `the command /${name}` };
  }
  if (t.any_message) return { key: 'any_message', shown: 'any_message' };
  return undefined;
}

/** Two flows triggered by `bot_started` (or the same payload, or the same command): an error naming both files. */
export function lintTriggerClashes(flows: readonly Parsed[]): Problem[] {
  const first = new Map<string, { file: string; flow: string; line: number }>();
  const problems: Problem[] = [];
  for (const p of flows) {
    (p.flow.triggers ?? []).forEach((t, i) => {
      const k = triggerKey(t);
      if (!k) return;
      const at = p.locate.at(['triggers', i]);
      const seen = first.get(k.key);
      if (!seen) {
        first.set(k.key, { file: p.file, flow: p.flow.flow, line: at.line });
        return;
      }
      if (seen.flow === p.flow.flow && seen.file === p.file) return;
      problems.push({
        code: 'trigger-clash',
        file: p.file,
        ...at,
        severity: 'error',
        message: `flows "${seen.flow}" (${seen.file}:${seen.line}) and "${p.flow.flow}" (${p.file}) both start on ${k.shown}: only one of them would ever run`,
        hint:
          k.key === 'bot_started'
            ? 'keep bot_started in one flow; tell the others apart by deep-link payload: bot_started: { payload: promo }'
            : 'keep this trigger in one of the two flows',
      });
    });
  }
  return problems;
}

/** The kinds of error that only say a name is not in the registry (task, validator, guard, effect, event). */
const REGISTRY_NAMES: ReadonlySet<ProblemCode> = new Set<ProblemCode>([
  'unknown-task',
  'unknown-validator',
  'unknown-guard',
  'unknown-effect',
  'unknown-classifier',
  'unknown-event',
]);

/**
 * When the registry did not load, every task, validator, guard and effect the flows name is unknown: those
 * errors are folded under the registry's own (which says how many), so that the one real error is seen.
 */
export function foldUnderRegistry(
  registryProblems: readonly Problem[],
  problems: readonly Problem[],
): { registry: Problem[]; rest: Problem[] } {
  if (!registryProblems.some((p) => p.severity === 'error'))
    return { registry: [...registryProblems], rest: [...problems] };
  const folded = problems.filter((p) => p.severity === 'error' && REGISTRY_NAMES.has(p.code));
  const rest = problems.filter((p) => !folded.includes(p));
  if (folded.length === 0) return { registry: [...registryProblems], rest };
  const names = [...new Set(folded.map((p) => /"([^"]+)"/.exec(p.message)?.[1]).filter(Boolean))];
  const shown = names.slice(0, 5).join(', ') + (names.length > 5 ? ', …' : '');
  const registry = registryProblems.map((p, i) =>
    i === 0
      ? {
          ...p,
          message: `${p.message} (so ${folded.length} error(s) about the names the flows take from it are not shown: ${shown}; fix the registry, then check again)`,
        }
      : p,
  );
  return { registry, rest };
}
