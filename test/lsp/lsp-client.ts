/**
 * A client of `botflow lsp` as an editor drives it: the real command started over stdio
 * (`node bin/botflow.js lsp --stdio`), spoken to with vscode-languageserver-protocol's client side.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  type Diagnostic,
  type ProtocolConnection,
  PublishDiagnosticsNotification,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Published diagnostics of a file, with the document version they were computed for. */
interface Published {
  diagnostics: Diagnostic[];
  version?: number;
  /** Counts publications, so a wait can ask for one newer than what it saw. */
  seq: number;
}

export class LspClient {
  readonly published = new Map<string, Published>();
  #seq = 0;
  #waiters: (() => void)[] = [];
  readonly #versions = new Map<string, number>();
  stderr = '';

  private constructor(
    readonly connection: ProtocolConnection,
    readonly child: ChildProcess,
    readonly root: string,
  ) {}

  /** Starts `botflow lsp --stdio` in `root` and initializes it with `root` as the workspace. */
  static async start(
    root: string,
    capabilities: Record<string, unknown> = {},
    /** The node arguments that start the server (default: the checkout's bin/botflow.js lsp --stdio). */
    argv = [join(REPO, 'bin/botflow.js'), 'lsp', '--stdio'],
  ): Promise<LspClient> {
    const child = spawn(process.execPath, argv, {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    const connection = createProtocolConnection(
      new StreamMessageReader(child.stdout!),
      new StreamMessageWriter(child.stdin!),
    );
    const client = new LspClient(connection, child, root);
    child.stderr!.on('data', (d: Buffer) => {
      client.stderr += d.toString();
    });
    connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
      client.published.set(p.uri, { diagnostics: p.diagnostics, version: p.version, seq: ++client.#seq });
      for (const w of client.#waiters.splice(0)) w();
    });
    connection.listen();
    await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(root).href,
      workspaceFolders: [{ uri: pathToFileURL(root).href, name: 'project' }],
      capabilities,
    });
    connection.sendNotification('initialized', {});
    return client;
  }

  uri(file: string): string {
    return pathToFileURL(join(this.root, file)).href;
  }

  /** The current publication count: a later wait can ask for diagnostics published after it. */
  get seq(): number {
    return this.#seq;
  }

  /** Waits until `file`'s published diagnostics satisfy `ok` (published after `since`). */
  async diagnostics(
    file: string,
    ok: (d: Diagnostic[]) => boolean = () => true,
    since = 0,
  ): Promise<Diagnostic[]> {
    for (;;) {
      const p = this.published.get(this.uri(file));
      if (p && p.seq > since && ok(p.diagnostics)) return p.diagnostics;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  open(file: string, text = readFileSync(join(this.root, file), 'utf8')): void {
    const languageId = file.endsWith('.ftl') ? 'fluent' : 'yaml';
    this.#versions.set(file, 1);
    this.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri: this.uri(file), languageId, version: 1, text },
    });
  }

  /** Replaces the whole text of an open file (as an editor's full sync does); returns its new version. */
  change(file: string, text: string): number {
    const version = (this.#versions.get(file) ?? 1) + 1;
    this.#versions.set(file, version);
    this.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri: this.uri(file), version },
      contentChanges: [{ text }],
    });
    return version;
  }

  /** Writes `file` on disk and says so as an editor does when it saves it. */
  save(file: string, text: string): void {
    writeFileSync(join(this.root, file), text);
    this.connection.sendNotification('textDocument/didSave', { textDocument: { uri: this.uri(file) } });
  }

  request<T>(method: string, params: unknown): Promise<T> {
    return this.connection.sendRequest(method, params) as Promise<T>;
  }

  /** shutdown, then exit; resolves with the server's exit code. */
  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => {
      if (this.child.exitCode !== null) resolve(this.child.exitCode);
      else this.child.on('exit', (code) => resolve(code));
    });
    await this.connection.sendRequest('shutdown');
    this.connection.sendNotification('exit');
    const code = await exited;
    this.connection.dispose();
    return code;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill();
    this.connection.dispose();
  }
}

/**
 * A copy of the repository's example project (flows/ with its registry, locales and transcripts) in the
 * checkout's ignored tmp/ folder, its imports of the sources made absolute so the copy's registry loads.
 */
export function copyExampleProject(): string {
  mkdirSync(join(REPO, 'tmp'), { recursive: true });
  const dir = mkdtempSync(join(REPO, 'tmp', 'lsp-'));
  cpSync(join(REPO, 'flows'), join(dir, 'flows'), { recursive: true });
  localise(join(dir, 'flows'), /(['"])(?:\.\.\/)+src\//g, `$1${join(REPO, 'src')}/`);
  return dir;
}

/** Rewrites the `.ts` files' imports of botflow under `folder` (`pattern`) to this checkout's sources. */
export function localise(folder: string, pattern: RegExp, replacement: string): void {
  for (const e of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, e.name);
    if (e.isDirectory()) localise(path, pattern, replacement);
    else if (e.name.endsWith('.ts'))
      writeFileSync(path, readFileSync(path, 'utf8').replace(pattern, replacement));
  }
}

/** The imports of the published package (`from 'botflow-engine'`) as this checkout's sources. */
export const PACKAGE_IMPORT: [RegExp, string] = [
  /(['"])botflow-engine\1/g,
  `$1${join(REPO, 'src/index.ts')}$1`,
];

export function remove(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
