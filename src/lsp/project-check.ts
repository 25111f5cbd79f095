/**
 * `botflow check` over the project as the editor sees it (open texts over the files on disk): the flows
 * with the one checker (compileSources), the catalogs' unreadable entries and the registry's failure as
 * loadFlows reports them, and the transcripts' problems. The result is every file's problems, by
 * absolute path.
 */
import { basename, resolve } from 'node:path';
import { foldUnderRegistry } from '../flows/lint-flow-set.ts';
import { type CheckOnly, catalogProblems, compileSources } from '../flows/load.ts';
import type { Problem } from '../flows/problems.ts';
import type { FlowFile } from '../flows/schema.ts';
import { type Catalog, loadCatalog } from '../flows/texts.ts';
import { type LoadedTranscripts, parseTranscripts } from '../testing/load.ts';
import type { Project } from './project.ts';
import { checkTranscript } from './transcript-check.ts';

/**
 * What the last checks parsed, by file, kept while the file's text is the same: a keystroke parses the
 * file it changed, not the project.
 */
export class KeptParses {
  readonly flows: NonNullable<CheckOnly['parsed']> = new Map();
  readonly #catalogs = new Map<string, Catalog>();
  readonly #transcripts = new Map<string, { text: string; parsed: LoadedTranscripts }>();

  catalog(file: string, text: string): Catalog {
    const kept = this.#catalogs.get(file);
    if (kept?.text === text) return kept;
    const catalog = loadCatalog(basename(file, '.ftl'), file, text);
    this.#catalogs.set(file, catalog);
    return catalog;
  }

  transcript(file: string, text: string): LoadedTranscripts {
    const kept = this.#transcripts.get(file);
    if (kept?.text === text) return kept.parsed;
    const parsed = parseTranscripts(text, file);
    this.#transcripts.set(file, { text, parsed });
    return parsed;
  }
}

/** Every file's problems, by absolute path (files without problems are absent). */
export type ProblemsByFile = Map<string, Problem[]>;

/** Checks the whole project: a change in one file may break another (a `call:`, a message id). */
export function checkProject(project: Project, kept: KeptParses = new KeptParses()): ProblemsByFile {
  const catalogs = new Map<string, Catalog>();
  for (const c of project.files('catalog'))
    catalogs.set(basename(c.file, '.ftl'), kept.catalog(c.file, c.text));
  const sources = project.files('flow').map((f) => ({ file: f.file, source: f.text }));
  const result = compileSources(sources, project.registry, catalogs, project.flowsDir, undefined, {
    checkOnly: true,
    parsed: kept.flows,
  });
  const folded = foldUnderRegistry(project.registryProblems, result.problems);
  const problems = [...folded.registry, ...catalogProblems(catalogs), ...folded.rest];
  const flows = parsedFlows(sources, kept);
  const labels = new Map<string, RegExp[] | undefined>();
  for (const t of project.files('transcript'))
    problems.push(...checkTranscript(kept.transcript(t.file, t.text), t.text, flows, catalogs, labels));
  const byFile: ProblemsByFile = new Map();
  for (const p of problems) {
    const file = resolve(p.file);
    const list = byFile.get(file) ?? [];
    list.push({ ...p, file, ...(p.fixes ? { fixes: absoluteFixes(p) } : {}) });
    byFile.set(file, list);
  }
  return byFile;
}

function absoluteFixes(p: Problem): Problem['fixes'] {
  return p.fixes?.map((f) => ({ ...f, edits: f.edits.map((e) => ({ ...e, file: resolve(e.file) })) }));
}

/** The flows that parse (even with problems), by id: what a transcript's flow and presses are checked against. */
function parsedFlows(sources: readonly { file: string }[], kept: KeptParses): Map<string, FlowFile> {
  const flows = new Map<string, FlowFile>();
  for (const s of sources) {
    const r = kept.flows.get(s.file)?.result;
    const flow = r?.flow ?? r?.salvaged;
    if (flow && !flows.has(flow.flow)) flows.set(flow.flow, flow);
  }
  return flows;
}
