/**
 * The project's index: each file's, kept per (file, text) so a keystroke re-reads one file, and the
 * project-wide lookups (a flow by id, a message in every catalog) over them.
 */
import type { Registry } from '../../flows/registry.ts';
import type { ProjectSnapshot, SourceFile } from '../language-types.ts';
import { type CatalogIndex, indexCatalog } from './catalog-index.ts';
import { type FlowIndex, indexFlow } from './flow-index.ts';
import type { FileIndex } from './model.ts';
import { quickIndex } from './quick-scan.ts';
import { indexTranscript, type TranscriptIndex } from './transcript-index.ts';

export interface ProjectIndex {
  project: ProjectSnapshot;
  flows: FlowIndex[];
  catalogs: CatalogIndex[];
  transcripts: TranscriptIndex[];
  flowById(id: string): FlowIndex | undefined;
  /** The file's index and what it is, or undefined for a file outside the project. */
  fileOf(file: string): Indexed | undefined;
}

export type Indexed =
  | { type: 'flow'; index: FlowIndex }
  | { type: 'catalog'; index: CatalogIndex }
  | { type: 'transcript'; index: TranscriptIndex };

interface Entry<T> {
  text: string;
  registry?: Registry;
  index: T;
}

/** How long after the last completion the file completed in is read in full again (an idle moment). */
const REFRESH_MS = 200;

/**
 * Caches of the files' indexes: a file is indexed again only when its text (or the registry) changed.
 * `full` reads every changed file; `forCompletion` reads the file being typed in with a scan of its lines
 * over its last full index (quick-scan.ts), and reads it in full a moment after the typing stops.
 */
export function indexCache() {
  const cache = new Map<string, Entry<FileIndex>>();
  const get = <T extends FileIndex>(file: string, text: string, make: () => T, registry?: Registry): T => {
    const e = cache.get(file);
    if (e && e.text === text && e.registry === registry) return e.index as T;
    const index = make();
    cache.set(file, { text, index, ...(registry ? { registry } : {}) });
    return index;
  };
  let last: { project: ProjectSnapshot; index: ProjectIndex } | undefined;
  const full = (project: ProjectSnapshot): ProjectIndex => {
    if (last?.project === project) return last.index;
    const { registry } = project;
    const index = build(
      project,
      (f) => get(f.file, f.text, () => indexFlow(f.file, f.text, registry), registry),
      get,
    );
    last = { project, index };
    // Files no longer in the project (deleted, renamed) are forgotten.
    for (const file of cache.keys()) if (!index.fileOf(file)) cache.delete(file);
    return index;
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const forCompletion = (project: ProjectSnapshot, file: string): ProjectIndex => {
    const e = cache.get(file);
    const typed = project.flows.find((f) => f.file === file);
    if (!typed || !e || e.text === typed.text || e.registry !== project.registry || !('steps' in e.index))
      return full(project);
    const quick = quickIndex(e.index as FlowIndex, typed.text);
    const { registry } = project;
    const flowOf = (f: SourceFile) =>
      f.file === file ? quick : get(f.file, f.text, () => indexFlow(f.file, f.text, registry), registry);
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      try {
        full(project);
      } catch {
        // read again by the next question that needs it, which reports what went wrong
      }
    }, REFRESH_MS);
    (timer as { unref?: () => void }).unref?.();
    return build(project, flowOf, get);
  };
  return { full, forCompletion };
}

type Get = <T extends FileIndex>(file: string, text: string, make: () => T, registry?: Registry) => T;

/** The project's index from its files' (a flow's from `flowOf`). */
function build(project: ProjectSnapshot, flowOf: (f: SourceFile) => FlowIndex, get: Get): ProjectIndex {
  const flows = project.flows.map(flowOf);
  const catalogs = project.catalogs.map((c) =>
    get(c.file, `${c.locale}\n${c.text}`, () => indexCatalog(c.file, c.locale, c.text)),
  );
  const transcripts = project.transcripts.map((t) =>
    get(t.file, t.text, () => indexTranscript(t.file, t.text)),
  );
  const byId = new Map(flows.filter((f) => f.flowId).map((f) => [f.flowId!, f]));
  const byFile = new Map<string, Indexed>([
    ...flows.map((index): [string, Indexed] => [index.file, { type: 'flow', index }]),
    ...catalogs.map((index): [string, Indexed] => [index.file, { type: 'catalog', index }]),
    ...transcripts.map((index): [string, Indexed] => [index.file, { type: 'transcript', index }]),
  ]);
  return {
    project,
    flows,
    catalogs,
    transcripts,
    flowById: (id) => byId.get(id),
    fileOf: (file) => byFile.get(file),
  };
}

export type IndexCache = ReturnType<typeof indexCache>;
