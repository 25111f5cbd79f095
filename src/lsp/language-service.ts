/**
 * The language service for flow files, transcripts and Fluent catalogs: completion, hover, definition,
 * references, rename and outline over a snapshot of the project (its files on disk with the open editors'
 * unsaved texts over them). One service for every editor: `botflow lsp` (src/lsp/server*.ts) answers an
 * LSP client with it, and the playground's editor asks it over HTTP. Diagnostics are not here: they are
 * `botflow check`'s problems (flows/load.ts compileSources), converted by the server.
 *
 * Its types are in language-types.ts; its parts in service/ (the project's index, one module per question).
 *
 * Positions and ranges are LSP's (0-based line and UTF-16 character); files are absolute paths, locations
 * `file://` URIs.
 */
import type { LanguageService } from './language-types.ts';
import { languageService } from './service/index.ts';

export type { LanguageService, ProjectSnapshot, SourceFile } from './language-types.ts';

/** The language service (it keeps what it parsed per file text, so a keystroke re-reads one file). */
export function createLanguageService(): LanguageService {
  return languageService();
}
