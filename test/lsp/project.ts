/** The repository's example project (flows/) as a language service's snapshot, read from disk. */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadRegistry } from '../../src/flows/load.ts';
import type { ProjectSnapshot, SourceFile } from '../../src/lsp/language-service.ts';

export const ROOT = resolve(import.meta.dirname, '../..');
export const FLOWS = join(ROOT, 'flows');

const read = (file: string): SourceFile => ({ file, text: readFileSync(file, 'utf8') });

/** The example project's flows, catalogs, transcripts and registry. */
export async function exampleProject(): Promise<ProjectSnapshot> {
  const { registry } = await loadRegistry(FLOWS);
  const files = (dir: string, suffix: string) =>
    readdirSync(dir)
      .filter((f) => f.endsWith(suffix))
      .sort()
      .map((f) => read(join(dir, f)));
  return {
    root: ROOT,
    flows: files(FLOWS, '.flow.yaml'),
    catalogs: files(join(FLOWS, 'locales'), '.ftl').map((c) => ({
      ...c,
      locale: c.file.replace(/^.*\/(\w+)\.ftl$/, '$1'),
    })),
    transcripts: files(join(FLOWS, 'tests'), '.test.yaml'),
    registry,
    registryFile: read(join(FLOWS, 'registry.ts')),
  };
}

/** The project with one file's text replaced (an editor's unsaved text). */
export function edited(p: ProjectSnapshot, file: string, text: string): ProjectSnapshot {
  const swap = (list: readonly SourceFile[]) => list.map((f) => (f.file === file ? { ...f, text } : f));
  return {
    ...p,
    flows: swap(p.flows),
    transcripts: swap(p.transcripts),
    catalogs: p.catalogs.map((c) => (c.file === file ? { ...c, text } : c)),
  };
}

/** The 0-based position of the `nth` occurrence of `needle` in `text`, plus `shift` characters. */
export function positionOf(text: string, needle: string, shift = 0, nth = 0) {
  let at = -1;
  for (let i = 0; i <= nth; i++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`"${needle}" not found`);
  }
  const offset = at + shift;
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - before.lastIndexOf('\n') - 1 };
}
