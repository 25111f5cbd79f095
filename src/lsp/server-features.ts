/**
 * The language service's answers wired to the connection: completion, hover, definition, references,
 * rename and outline, each over the project's current snapshot. A service that throws answers nothing
 * (and says why on the log): the server keeps serving.
 */
import type { Connection } from 'vscode-languageserver/node';
import type { LanguageService, ProjectSnapshot } from './language-service.ts';
import { pathOf } from './paths.ts';

export function wireLanguageFeatures(
  connection: Connection,
  service: LanguageService,
  snapshot: () => ProjectSnapshot | undefined,
  log: (message: string) => void,
): void {
  /** Runs `ask` on the snapshot and the document's path, or returns `none`. */
  const answer = <T>(uri: string, none: T, ask: (project: ProjectSnapshot, file: string) => T): T => {
    const project = snapshot();
    const file = pathOf(uri);
    if (!project || !file) return none;
    try {
      return ask(project, file);
    } catch (error) {
      log(`botflow lsp: ${(error as Error).stack ?? error}`);
      return none;
    }
  };
  connection.onCompletion(({ textDocument, position }) =>
    answer(textDocument.uri, [], (p, f) => service.completion(p, f, position)),
  );
  connection.onHover(({ textDocument, position }) =>
    answer(textDocument.uri, null, (p, f) => service.hover(p, f, position)),
  );
  connection.onDefinition(({ textDocument, position }) =>
    answer(textDocument.uri, [], (p, f) => service.definition(p, f, position)),
  );
  connection.onReferences(({ textDocument, position, context }) =>
    answer(textDocument.uri, [], (p, f) => service.references(p, f, position, context.includeDeclaration)),
  );
  connection.onPrepareRename(({ textDocument, position }) =>
    answer(textDocument.uri, null, (p, f) => service.prepareRename(p, f, position)),
  );
  connection.onRenameRequest(({ textDocument, position, newName }) =>
    answer(textDocument.uri, null, (p, f) => service.rename(p, f, position, newName)),
  );
  connection.onDocumentSymbol(({ textDocument }) =>
    answer(textDocument.uri, [], (p, f) => service.documentSymbols(p, f)),
  );
}
