/**
 * Publishes a check's problems as diagnostics: every file that has problems gets them, every file that
 * had some at the last check and has none now is cleared. Keeps each file's problems with their
 * diagnostics, for the quick fixes.
 */
import { pathToFileURL } from 'node:url';
import type { Connection } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-types';
import type { Problem } from '../flows/problems.ts';
import { toDiagnostic } from './diagnostics.ts';
import type { Project } from './project.ts';
import { checkProject, KeptParses } from './project-check.ts';

/** A problem of the last check and the diagnostic it was shown as. */
export interface CheckedFile {
  problem: Problem;
  diagnostic: Diagnostic;
}

export class Publisher {
  /** The last check's problems, by absolute path. */
  readonly last = new Map<string, CheckedFile[]>();
  readonly #kept = new KeptParses();

  constructor(
    private readonly connection: Connection,
    private readonly document: (uri: string) => TextDocument | undefined,
  ) {}

  /** Checks `project` and publishes what changed since the last check. */
  publish(project: Project): void {
    const problems = checkProject(project, this.#kept);
    const before = new Set(this.last.keys());
    this.last.clear();
    for (const [file, list] of problems) {
      const text = project.text(file);
      const checked = list.map((problem) => ({ problem, diagnostic: toDiagnostic(problem, text) }));
      this.last.set(file, checked);
      this.send(
        file,
        checked.map((c) => c.diagnostic),
      );
      before.delete(file);
    }
    for (const file of before) this.send(file, []);
  }

  private send(file: string, diagnostics: Diagnostic[]): void {
    const uri = pathToFileURL(file).href;
    const version = this.document(uri)?.version;
    void this.connection.sendDiagnostics({ uri, diagnostics, ...(version !== undefined ? { version } : {}) });
  }
}
