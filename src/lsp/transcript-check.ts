/**
 * What `botflow test` would refuse in a transcript before running it, found without running it: the
 * file's own mistakes (its format), a flow the project does not have, and a press on a button that no
 * step of its flow (or of a flow it calls) offers.
 */
import { BUILTIN_CATALOGS } from '../flows/builtin-texts.ts';
import { walkFlow } from '../flows/flow-walk.ts';
import { attachedKind } from '../flows/kinds/custom-attach.ts';
import { closest, type Problem } from '../flows/problems.ts';
import type { FlowFile } from '../flows/schema.ts';
import type { Catalog } from '../flows/texts.ts';
import type { LoadedTranscripts } from '../testing/load.ts';

/**
 * The problems of one transcript file (parsed from `text`), given the project's parsed flows by id and its
 * catalogs; `labels` keeps each flow's button labels for the other transcripts of the same check.
 */
export function checkTranscript(
  parsed: LoadedTranscripts,
  text: string,
  flows: ReadonlyMap<string, FlowFile>,
  catalogs: ReadonlyMap<string, Catalog>,
  labels: Map<string, RegExp[] | undefined> = new Map(),
): Problem[] {
  const problems = [...parsed.problems];
  const lines = text.split('\n');
  for (const t of parsed.transcripts) {
    const flow = flows.get(t.flow);
    if (!flow) {
      const guess = closest(t.flow, flows.keys());
      problems.push({
        ...wordAt(t.file, lines, t.line, `flow: ${t.flow}`, t.flow),
        code: 'unknown-flow',
        severity: 'error',
        message: `the transcript "${t.name}" names flow "${t.flow}", which the project does not have`,
        hint: guess ? `did you mean "${guess}"?` : `its flows are: ${[...flows.keys()].join(', ')}`,
      });
      continue;
    }
    if (!labels.has(t.flow)) labels.set(t.flow, buttonLabels(flow, flows, catalogs));
    const offered = labels.get(t.flow);
    if (!offered) continue;
    for (const turn of t.turns) {
      const action = turn.action;
      if (action.kind !== 'press' || offered.some((re) => re.test(action.button))) continue;
      const label = action.button;
      problems.push({
        ...wordAt(t.file, lines, turn.line, 'press', label),
        code: 'unknown-button',
        severity: 'error',
        message: `press "${label}": no step of flow "${t.flow}" (or of a flow it calls) offers this button`,
        hint: 'press a label its steps show (their buttons, options, or a message id’s text in the catalog)',
      });
    }
  }
  return problems;
}

/**
 * The labels a flow and the flows it calls may show as patterns, or undefined when they cannot be known
 * without running it (a step of the project's own kind draws its own buttons).
 */
function buttonLabels(
  flow: FlowFile,
  flows: ReadonlyMap<string, FlowFile>,
  catalogs: ReadonlyMap<string, Catalog>,
): RegExp[] | undefined {
  const patterns: RegExp[] = [];
  const seen = new Set<string>();
  const visit = (f: FlowFile): boolean => {
    if (seen.has(f.flow)) return true;
    seen.add(f.flow);
    // A step of the project's own kind draws its own buttons.
    if (Object.values(f.steps).some((s) => attachedKind(s) !== undefined)) return false;
    const walked = walkSafely(f);
    if (!walked) return false;
    for (const t of walked.texts.filter((x) => x.label)) {
      const texts = f.i18n ? messageTexts(t.text, catalogs) : [t.text];
      patterns.push(...texts.map(asPattern));
    }
    return walked.calls.every((c) => {
      const callee = flows.get(c.flow);
      return !callee || visit(callee);
    });
  };
  if (!visit(flow)) return undefined;
  // botflow's own buttons (Done, the pages of a long list of options), in every language it speaks.
  for (const catalog of Object.values(BUILTIN_CATALOGS))
    patterns.push(...Object.values(catalog).map(asPattern));
  return patterns;
}

/** The flow's parts, or undefined when a step of it has a type no kind has (a file being typed). */
function walkSafely(flow: FlowFile): ReturnType<typeof walkFlow> | undefined {
  try {
    return walkFlow(flow);
  } catch {
    return undefined;
  }
}

/** A message id's text in every catalog (its variables left as `{$name}`). */
function messageTexts(id: string, catalogs: ReadonlyMap<string, Catalog>): string[] {
  const out: string[] = [];
  for (const c of catalogs.values()) {
    const message = c.bundle.getMessage(id);
    if (!message?.value) continue;
    out.push(c.bundle.formatPattern(message.value, {}, []));
  }
  return out.length ? out : [id];
}

/** A label as a pattern: its `{{variables}}` and Fluent placeables match any text. */
function asPattern(label: string): RegExp {
  const parts = label.split(/\{\{[^}]*\}\}|\{\$?[^}]*\}/);
  return new RegExp(`^${parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
}

/** Where `word` is on 1-based line `line` (after `anchor` when the line has it), as a problem's range. */
function wordAt(file: string, lines: readonly string[], line: number, anchor: string, word: string) {
  const text = lines[line - 1] ?? '';
  const from = Math.max(text.indexOf(anchor), 0);
  const at = text.indexOf(word, from);
  if (at < 0) return { file, line, col: 1, endLine: line, endCol: text.length + 1 };
  return { file, line, col: at + 1, endLine: line, endCol: at + 1 + word.length };
}
