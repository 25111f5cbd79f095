/** Asks the client to report the project's files created, changed or deleted on disk (didChangeWatchedFiles). */
import { type Connection, DidChangeWatchedFilesNotification } from 'vscode-languageserver/node';
import { pathOf } from './paths.ts';

/** The files the server reads: flows, transcripts, catalogs and the registry's code. */
const GLOBS = ['**/*.flow.yaml', '**/*.test.yaml', '**/*.ftl', '**/*.ts', '**/*.js', '**/botflow.config.*'];

/** Registers the watchers (when the client can be asked to) and calls `changed` with each file's path. */
export function watchProjectFiles(
  connection: Connection,
  register: boolean,
  changed: (path: string) => void,
): void {
  if (register)
    void connection.client.register(DidChangeWatchedFilesNotification.type, {
      watchers: GLOBS.map((globPattern) => ({ globPattern })),
    });
  connection.onDidChangeWatchedFiles((params) => {
    for (const change of params.changes) {
      const path = pathOf(change.uri);
      if (path) changed(path);
    }
  });
}
