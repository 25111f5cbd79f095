/** The repository's example project (flows/) as a language service's snapshot, read from disk. */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Location, WorkspaceEdit } from 'vscode-languageserver-types';
import { compileSources, loadRegistry } from '../../src/flows/load.ts';
import { loadCatalog } from '../../src/flows/texts.ts';
import type { ProjectSnapshot, SourceFile } from '../../src/lsp/language-service.ts';
import { linesOf, offsetAt } from '../../src/lsp/service/text.ts';

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

/** The files' texts after a workspace edit (each file's edits applied from its end). */
export function applyEdit(p: ProjectSnapshot, edit: WorkspaceEdit): ProjectSnapshot {
  let out = p;
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) {
    const file = fileURLToPath(uri);
    const all = [...p.flows, ...p.transcripts, ...p.catalogs];
    let text = all.find((f) => f.file === file)!.text;
    const lines = linesOf(text);
    const sorted = [...edits].sort((a, b) => offsetAt(lines, b.range.start) - offsetAt(lines, a.range.start));
    for (const e of sorted)
      text =
        text.slice(0, offsetAt(lines, e.range.start)) + e.newText + text.slice(offsetAt(lines, e.range.end));
    out = edited(out, file, text);
  }
  return out;
}

/** `botflow check`'s problems of a snapshot's flows (compileSources), as "file:line message". */
export function checkProblems(p: ProjectSnapshot): string[] {
  const catalogs = new Map(p.catalogs.map((c) => [c.locale, loadCatalog(c.locale, c.file, c.text)]));
  const r = compileSources(
    p.flows.map((f) => ({ file: f.file, source: f.text })),
    p.registry,
    catalogs,
    FLOWS,
  );
  return r.problems.map((x) => `${x.file.split('/').pop()}:${x.line} ${x.severity} ${x.message}`);
}

/** The text a location points at, in the snapshot. */
export function textAt(p: ProjectSnapshot, loc: Location): string {
  const file = fileURLToPath(loc.uri);
  const all = [...p.flows, ...p.transcripts, ...p.catalogs, ...(p.registryFile ? [p.registryFile] : [])];
  const text = all.find((f) => f.file === file)?.text ?? readFileSync(file, 'utf8');
  const lines = linesOf(text);
  return text.slice(offsetAt(lines, loc.range.start), offsetAt(lines, loc.range.end));
}
