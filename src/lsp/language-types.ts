/**
 * The language service's types (language-service.ts says what it is for), apart so that its parts in
 * service/ name them without an import circle. Positions and ranges are LSP's (0-based line and UTF-16
 * character); files are absolute paths, locations `file://` URIs.
 */
import type {
  CompletionItem,
  DocumentSymbol,
  Hover,
  Location,
  Position,
  Range,
  WorkspaceEdit,
} from 'vscode-languageserver-types';
import type { Registry } from '../flows/registry.ts';

/** A file of the project: its absolute path and its text (an open editor's, unsaved, when there is one). */
export interface SourceFile {
  file: string;
  text: string;
}

/** The project as the editor sees it. */
export interface ProjectSnapshot {
  /** The project's folder (where its configuration is, or the editor's workspace root). */
  root: string;
  /** Flow files (`*.flow.yaml`) of every flows folder. */
  flows: readonly SourceFile[];
  /** Fluent catalogs (`locales/<locale>.ftl`). */
  catalogs: readonly (SourceFile & { locale: string })[];
  /** Transcripts (`*.test.yaml`). */
  transcripts: readonly SourceFile[];
  /** The project's registry (validators, guards, effects, tasks, its own step kinds). */
  registry: Registry;
  /** The registry's source, for go to definition of a task, validator, guard or effect. */
  registryFile?: SourceFile;
}

/** What an editor asks about a place in a file of `project`. */
export interface LanguageService {
  completion(project: ProjectSnapshot, file: string, at: Position): CompletionItem[];
  hover(project: ProjectSnapshot, file: string, at: Position): Hover | null;
  definition(project: ProjectSnapshot, file: string, at: Position): Location[];
  references(project: ProjectSnapshot, file: string, at: Position, includeDeclaration: boolean): Location[];
  /** The range and current name of what a rename at `at` would rename (a step id, a variable), or null. */
  prepareRename(
    project: ProjectSnapshot,
    file: string,
    at: Position,
  ): { range: Range; placeholder: string } | null;
  rename(project: ProjectSnapshot, file: string, at: Position, newName: string): WorkspaceEdit | null;
  /** The outline: a flow and its steps (with their kinds), a transcript's turns, a catalog's messages. */
  documentSymbols(project: ProjectSnapshot, file: string): DocumentSymbol[];
}
