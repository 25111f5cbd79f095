/**
 * The botflow extension: starts `botflow lsp` (by default `npx botflow lsp --stdio`, in the workspace's
 * folder) for flow files, transcripts and Fluent catalogs. Flow files and transcripts are languages of
 * their own (highlighted as YAML), so the YAML extension leaves them to botflow (docs/editor.md).
 */
import { type ExtensionContext, workspace } from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { LANGUAGES } from './languages.ts';

let client: LanguageClient | undefined;

export async function activate(context: ExtensionContext): Promise<void> {
  const folder = workspace.workspaceFolders?.[0]?.uri.fsPath;
  const configured = workspace.getConfiguration('botflow').get<string[]>('server.command');
  const [command = 'npx', ...args] = configured?.length ? configured : ['npx', 'botflow', 'lsp', '--stdio'];
  const server: ServerOptions = {
    command,
    args,
    // npx is npx.cmd on Windows: a shell finds it.
    options: { ...(folder ? { cwd: folder } : {}), shell: process.platform === 'win32' },
  };
  const options: LanguageClientOptions = {
    documentSelector: LANGUAGES.map((language) => ({ scheme: 'file', language })),
  };
  client = new LanguageClient('botflow', 'botflow', server, options);
  context.subscriptions.push(client);
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
