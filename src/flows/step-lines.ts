/**
 * Where each step of a flow file is written: its file, first line and lines, for the playground's graph
 * ("click a step to see its source"). Read from the stored source of a compiled flow (FlowDefinition.source);
 * steps written in block style under `steps:` are found, others are simply not listed.
 */
import { parseFlowSourceRecord } from './flow-source.ts';

export interface StepLines {
  file: string;
  /** 1-based line of the step's key. */
  line: number;
  text: string;
}

const MAX_LINES = 40;

/** The lines of each top-level step of the flow's own file, by step id. */
export function stepLines(source: string | undefined): Record<string, StepLines> {
  if (!source) return {};
  let file: { file: string; source: string } | undefined;
  try {
    file = parseFlowSourceRecord(source).files[0];
  } catch {
    return {};
  }
  if (!file) return {};
  const lines = file.source.split('\n');
  const start = lines.findIndex((l) => /^steps:\s*(#.*)?$/.test(l));
  if (start < 0) return {};
  const keys: { id: string; at: number }[] = [];
  let indent: number | undefined;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\S/.test(line)) {
      end = i; // the next top-level key: the steps are over
      break;
    }
    const key = /^( +)([A-Za-z_][\w-]*):/.exec(line);
    if (!key) continue;
    indent ??= key[1]!.length;
    if (key[1]!.length === indent) keys.push({ id: key[2]!, at: i });
  }
  const out: Record<string, StepLines> = {};
  for (const [k, { id, at }] of keys.entries()) {
    let stop = keys[k + 1]?.at ?? end;
    while (stop > at + 1 && /^\s*(#.*)?$/.test(lines[stop - 1]!)) stop--; // trailing blanks and comments
    const body = lines.slice(at, Math.min(stop, at + MAX_LINES));
    if (stop - at > MAX_LINES) body.push('  …');
    out[id] = { file: file.file, line: at + 1, text: body.join('\n') };
  }
  return out;
}
