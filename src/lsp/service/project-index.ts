/**
 * The project's index: each file's, kept per (file, text) so a keystroke re-reads one file, and the
 * project-wide lookups (a flow by id, a message in every catalog) over them.
 */
import type { Registry } from '../../flows/registry.ts';
import type { ProjectSnapshot } from '../language-service.ts';
import { type CatalogIndex, indexCatalog } from './catalog-index.ts';
import { type FlowIndex, indexFlow } from './flow-index.ts';
import type { FileIndex } from './model.ts';
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

/** Caches of the files' indexes: a file is indexed again only when its text (or the registry) changed. */
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
  return (project: ProjectSnapshot): ProjectIndex => {
    if (last?.project === project) return last.index;
    const { registry } = project;
    const flows = project.flows.map((f) =>
      get(f.file, f.text, () => indexFlow(f.file, f.text, registry), registry),
    );
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
    const index: ProjectIndex = {
      project,
      flows,
      catalogs,
      transcripts,
      flowById: (id) => byId.get(id),
      fileOf: (file) => byFile.get(file),
    };
    last = { project, index };
    return index;
  };
}

export type IndexOf = ReturnType<typeof indexCache>;
