/**
 * `botflow lsp`'s server: an LSP connection (vscode-languageserver) over the project the workspace holds.
 * Diagnostics are `botflow check`'s problems for every flow file, catalog and transcript, checked again
 * after each change (one check at a time, the latest texts win) and published for every file that has
 * problems, cleared for those that no longer have any. Quick fixes are the problems' fixes. Completion,
 * hover, definition, references, rename and outline are the language service's answers.
 */
import {
  type Connection,
  type InitializeParams,
  type InitializeResult,
  type ServerCapabilities,
  TextDocumentSyncKind,
  TextDocuments,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { CodeActionKind, type Diagnostic } from 'vscode-languageserver-types';
import { CheckLoop } from './check-loop.ts';
import { quickFixes, sameDiagnostic } from './diagnostics.ts';
import { createLanguageService } from './language-service.ts';
import { pathOf } from './paths.ts';
import { Project } from './project.ts';
import { type CheckedFile, Publisher } from './publisher.ts';
import { wireLanguageFeatures } from './server-features.ts';
import { watchProjectFiles } from './server-watch.ts';

/** The workspace's root folder an editor names at initialize (its first folder), else the server's folder. */
function rootOf(params: InitializeParams): string {
  const uri = params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? undefined;
  return (uri && pathOf(uri)) ?? params.rootPath ?? process.cwd();
}

const CAPABILITIES: ServerCapabilities = {
  textDocumentSync: {
    openClose: true,
    change: TextDocumentSyncKind.Incremental,
    save: { includeText: false },
  },
  // Step ids after `goto: `/`next: `, variables in `{{`, expressions' members, Fluent's `$variables`.
  completionProvider: { triggerCharacters: ['{', '.', ':', ' ', '$', '-'] },
  hoverProvider: true,
  definitionProvider: true,
  referencesProvider: true,
  renameProvider: { prepareProvider: true },
  documentSymbolProvider: true,
  codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
};

/** Serves the language server on `connection` until the client says exit. */
export function startServer(connection: Connection): void {
  const documents = new TextDocuments(TextDocument);
  const service = createLanguageService();
  let project: Project | undefined;
  let registryReady: Promise<void> = Promise.resolve();
  let watchedFiles = false;
  const publisher = new Publisher(connection, (uri) => documents.get(uri));
  const log = (message: string) => connection.console.error(message);

  connection.onInitialize((params): InitializeResult => {
    project = new Project(rootOf(params));
    registryReady = reloadRegistry();
    watchedFiles = !!params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration;
    return { capabilities: CAPABILITIES, serverInfo: { name: 'botflow' } };
  });

  connection.onInitialized(() => {
    watchProjectFiles(connection, watchedFiles, fileChanged);
    log(`botflow lsp: flows folder ${project?.flowsDir}`);
    check();
  });

  /** Imports the registry again; a registry that fails to load is its problem, not the server's end. */
  async function reloadRegistry(): Promise<void> {
    try {
      await project?.loadRegistry();
    } catch (error) {
      log(`botflow lsp: the registry did not load: ${(error as Error).message}`);
    }
  }

  /** A file saved, created or deleted on disk (not through an open editor's text). */
  function fileChanged(path: string): void {
    if (!project) return;
    const kind = project.kindOf(path);
    if (kind === 'registry') {
      registryReady = reloadRegistry();
    } else if (kind) project.reread(path);
    if (kind) check();
  }

  const checks = new CheckLoop(
    () => project && publisher.publish(project),
    () => registryReady,
    log,
  );
  const check = () => checks.request();

  const openText = (uri: string, text: string | undefined) => {
    const path = pathOf(uri);
    if (!project || !path || !project.kindOf(path)) return;
    project.setOpen(path, text);
    check();
  };
  documents.onDidChangeContent((e) => openText(e.document.uri, e.document.getText()));
  documents.onDidClose((e) => openText(e.document.uri, undefined));
  documents.onDidSave((e) => {
    const path = pathOf(e.document.uri);
    if (path) fileChanged(path);
  });

  connection.onCodeAction((params) => {
    const path = pathOf(params.textDocument.uri);
    const checked: CheckedFile[] = (path && publisher.last.get(path)) || [];
    return params.context.diagnostics.flatMap((d: Diagnostic) => {
      const found = checked.find((c) => sameDiagnostic(c.diagnostic, d));
      return found ? quickFixes(found.problem, found.diagnostic) : [];
    });
  });

  wireLanguageFeatures(connection, service, () => project?.snapshot(), log);
  documents.listen(connection);
  connection.listen();
}
