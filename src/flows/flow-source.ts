/**
 * What a compiled flow version is built from, as one JSON text (FlowDefinition.source): the flow file,
 * the files of the flows it inlines, and the catalogs it renders with. The engine stores it with the
 * version, and `rebuildFlow` (rebuild.ts) compiles it again after a restart, so sessions pinned to an
 * old version keep running. The programmers' registry is code: it is not stored, but named again when
 * rebuilding.
 */
import type { FlowFile } from './schema.ts';
import type { Catalog } from './texts.ts';

/** One flow file in memory: its path (as reported in problems) and text. */
export interface FlowSource {
  file: string;
  source: string;
}

/** Marks a stored source as botflow's flow-file format (and its revision). */
export const FLOW_SOURCE_KIND = 'botflow.flow-files/1';

/** The JSON shape of FlowDefinition.source for flow files. */
export interface StoredFlowSource {
  kind: typeof FLOW_SOURCE_KIND;
  /** The flow id and the version these files compile to. */
  flow: string;
  version: string;
  /** The flow's own file first, then the files of the flows it calls. */
  files: FlowSource[];
  /** The catalogs, when the flow or a flow it calls uses `i18n` (else empty). */
  locales: { locale: string; file: string; text: string }[];
  /** Absolute folder that media paths are relative to. */
  baseDir: string;
}

/**
 * The source of a flow version, or undefined when it cannot be self-contained (a catalog given
 * without its text, as catalogs built by hand may be).
 */
export function describeFlowSource(args: {
  flow: FlowFile;
  version: string;
  files: FlowSource[];
  usesI18n: boolean;
  catalogs: Map<string, Catalog>;
  baseDir: string;
}): string | undefined {
  const locales: StoredFlowSource['locales'] = [];
  if (args.usesI18n) {
    for (const [locale, catalog] of args.catalogs) {
      if (catalog.text === undefined) return undefined;
      locales.push({ locale, file: catalog.file, text: catalog.text });
    }
  }
  const stored: StoredFlowSource = {
    kind: FLOW_SOURCE_KIND,
    flow: args.flow.flow,
    version: args.version,
    files: args.files.map((f) => ({ file: f.file, source: f.source })),
    locales,
    baseDir: args.baseDir,
  };
  return JSON.stringify(stored);
}

/**
 * Reads a stored source, or throws an Error saying what is wrong with it. Plain Errors: every caller catches
 * them (rebuildFlow wraps the message in a FlowRebuildError; the storyboard and step lines go without).
 */
export function parseFlowSourceRecord(source: string): StoredFlowSource {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new Error(`the stored source is not JSON (${(error as Error).message})`);
  }
  const v = value as Partial<StoredFlowSource> | null;
  if (!v || typeof v !== 'object' || v.kind !== FLOW_SOURCE_KIND) {
    throw new Error(`the stored source is not a flow-file source (expected kind "${FLOW_SOURCE_KIND}")`);
  }
  const ok =
    typeof v.flow === 'string' &&
    typeof v.version === 'string' &&
    typeof v.baseDir === 'string' &&
    Array.isArray(v.files) &&
    v.files.length > 0 &&
    v.files.every((f) => typeof f?.file === 'string' && typeof f.source === 'string') &&
    Array.isArray(v.locales) &&
    v.locales.every(
      (l) => typeof l?.locale === 'string' && typeof l.file === 'string' && typeof l.text === 'string',
    );
  if (!ok)
    throw new Error('the stored source is incomplete (flow, version, files, locales or baseDir missing)');
  return v as StoredFlowSource;
}
