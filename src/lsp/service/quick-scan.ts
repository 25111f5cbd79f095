/**
 * A flow file's index brought up to date for completion without reading its YAML again: a keystroke's text
 * gets its steps (ids and kinds) and the variables it saves from a scan of its lines, over the last full
 * index of the file (its types, texts and the rest, at most a few keystrokes old). Reading a 300-step file's
 * YAML takes tens of milliseconds; this takes one or two.
 */
import type { FlowIndex } from './flow-index.ts';
import type { StepInfo } from './model.ts';
import { linesOf } from './text.ts';

/** The steps written under `steps:`, by indentation, with their `type:`. */
function scanSteps(text: string): Map<string, StepInfo> {
  const steps = new Map<string, StepInfo>();
  const rows = text.split('\n');
  let offset = 0;
  let indent = -1;
  let inSteps = false;
  let current: StepInfo | undefined;
  for (const row of rows) {
    const own = row.length - row.trimStart().length;
    const blank = !row.trim() || row.trimStart().startsWith('#');
    if (!blank && own === 0) {
      inSteps = /^steps:\s*(#.*)?$/.test(row);
      indent = -1;
      current = undefined;
    } else if (inSteps && !blank) {
      if (indent < 0) indent = own;
      const key = own === indent ? /^\s*([A-Za-z][\w]*)\s*:/.exec(row) : null;
      if (key) {
        const start = offset + own;
        current = { id: key[1]!, type: '', start, end: start + key[1]!.length, blockEnd: start };
        steps.set(current.id, current);
      } else if (current && own > indent) {
        const type = /^\s*type:\s*([\w-]+)/.exec(row);
        if (type && !current.type) current.type = type[1]!;
      }
    }
    if (current) current.blockEnd = offset + row.length;
    offset += row.length + 1;
  }
  return steps;
}

/** `stale` (the file's last full index) with the steps and saved variables of `text`. */
export function quickIndex(stale: FlowIndex, text: string): FlowIndex {
  const scanned = scanSteps(text);
  const steps = new Map<string, StepInfo>();
  for (const [id, s] of scanned) {
    const old = stale.steps.get(id);
    steps.set(id, old ? { ...s, ...(old.say ? { say: old.say } : {}), type: s.type || old.type } : s);
  }
  const types = new Map(stale.types);
  for (const m of text.matchAll(/\bsave(?:_as)?:\s*([A-Za-z_]\w*)/g))
    if (!types.has(m[1]!)) types.set(m[1]!, { kind: 'unknown' });
  return { ...stale, lines: linesOf(text), steps, types };
}
