/**
 * The project as the playground's editor sees it: the flows folder's files with the editor's unsaved text
 * over one of them. Diagnostics are `botflow check`'s problems (the one checker, compileSources) for that
 * file; completion is the language service's.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { CompletionItem } from 'vscode-languageserver-types';
import { compileSources, loadLocales, loadRegistry, readFlowSources } from '../flows/load.ts';
import type { Problem } from '../flows/problems.ts';
import type { Registry } from '../flows/registry.ts';
import { createLanguageService, type ProjectSnapshot } from './language-service.ts';

/** A place in the text: 1-based line and column (UTF-16), as problems have them. */
export interface EditorPosition {
  line: number;
  col: number;
}

/** A problem of the edited text, with the range to underline. */
export interface EditorDiagnostic {
  from: EditorPosition;
  to: EditorPosition;
  severity: Problem['severity'];
  message: string;
  hint?: string;
  code?: string;
  /** The problem's quick fixes whose edits are all in this file. */
  fixes?: EditorFix[];
}

/** A quick fix as the editor applies it: edits of the edited text, 1-based positions, end exclusive. */
export interface EditorFix {
  title: string;
  edits: { from: EditorPosition; to: EditorPosition; newText: string }[];
}

/** Where the editor's project is and what it was loaded with (the registry is code: imported once). */
export class EditorProject {
  private registry: Promise<Registry> | undefined;
  private readonly service = createLanguageService();

  constructor(readonly flowsDir: string) {}

  /** The registry the flows are checked with (imported on first use, again after `forget()`). */
  loadRegistry(): Promise<Registry> {
    this.registry ??= loadRegistry(this.flowsDir).then((r) => r.registry);
    return this.registry;
  }

  /** The flows were reloaded: the registry may have changed. */
  forget(): void {
    this.registry = undefined;
  }

  /** The checker's problems of `text` as the file `path` of the folder, with the other flows as saved. */
  async diagnostics(path: string, text: string): Promise<EditorDiagnostic[]> {
    const registry = await this.loadRegistry();
    const reported = relative(process.cwd(), join(this.flowsDir, path)) || path;
    const others = readFlowSources(this.flowsDir).filter((s) => resolve(s.file) !== resolve(reported));
    const result = compileSources(
      [...others, { file: reported, source: text }],
      registry,
      loadLocales(this.flowsDir),
      this.flowsDir,
    );
    const lines = text.split('\n');
    return result.problems
      .filter((p) => resolve(p.file) === resolve(reported))
      .map((p) => toDiagnostic(p, lines, reported));
  }

  /** Completion at a place of `text` (the file `path`): the language service's items. */
  async completion(
    path: string,
    text: string,
    at: { line: number; character: number },
  ): Promise<CompletionItem[]> {
    const snapshot = await this.snapshot(path, text);
    return this.service.completion(snapshot, resolve(this.flowsDir, path), at);
  }

  /** The project with `text` over the file `path`, as the language service takes it (absolute paths). */
  async snapshot(path: string, text: string): Promise<ProjectSnapshot> {
    const edited = resolve(this.flowsDir, path);
    const flows = readFlowSources(this.flowsDir).map((s) => ({ file: resolve(s.file), text: s.source }));
    const rest = flows.filter((f) => f.file !== edited);
    const locales = join(this.flowsDir, 'locales');
    const catalogs = existsSync(locales)
      ? readdirSync(locales)
          .filter((n) => n.endsWith('.ftl'))
          .map((n) => ({
            file: resolve(locales, n),
            text: readFileSync(join(locales, n), 'utf8'),
            locale: n.slice(0, -4),
          }))
      : [];
    const tests = join(this.flowsDir, 'tests');
    const transcripts = existsSync(tests)
      ? readdirSync(tests)
          .filter((n) => /\.test\.ya?ml$/.test(n))
          .map((n) => ({ file: resolve(tests, n), text: readFileSync(join(tests, n), 'utf8') }))
      : [];
    const registryFile = ['registry.ts', 'registry.js']
      .map((n) => resolve(this.flowsDir, n))
      .find((f) => existsSync(f));
    return {
      root: process.cwd(),
      flows: [...rest, { file: edited, text }],
      catalogs,
      transcripts,
      registry: await this.loadRegistry(),
      ...(registryFile
        ? { registryFile: { file: registryFile, text: readFileSync(registryFile, 'utf8') } }
        : {}),
    };
  }
}

/** A problem with the range an editor underlines: its own end, or else the word (or the rest of the line) at it. */
export function toDiagnostic(p: Problem, lines: readonly string[], file = p.file): EditorDiagnostic {
  const from = { line: p.line, col: p.col };
  let to: EditorPosition;
  if (p.endLine !== undefined && p.endCol !== undefined) to = { line: p.endLine, col: p.endCol };
  else {
    const line = lines[p.line - 1] ?? '';
    const rest = line.slice(p.col - 1);
    const word = /^[^\s,{}[\]]+/.exec(rest)?.[0].length ?? rest.trimEnd().length;
    to = { line: p.line, col: p.col + Math.max(word, 1) };
  }
  return {
    from,
    to,
    severity: p.severity,
    message: p.message,
    ...(p.hint ? { hint: p.hint } : {}),
    ...(p.code ? { code: p.code } : {}),
    ...fixesIn(p.fixes, file),
  };
}

/** The fixes whose every edit is in `file` (a fix that also edits another file is left to `botflow lsp`). */
function fixesIn(fixes: Problem['fixes'], file: string): { fixes?: EditorFix[] } {
  const own = (fixes ?? [])
    .filter((f) => f.edits.length > 0 && f.edits.every((e) => resolve(e.file) === resolve(file)))
    .map((f) => ({
      title: f.title,
      edits: f.edits.map((e) => ({
        from: { line: e.line, col: e.col },
        to: { line: e.endLine, col: e.endCol },
        newText: e.newText,
      })),
    }));
  return own.length ? { fixes: own } : {};
}
