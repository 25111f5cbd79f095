// The editor's door to the server: the `/_editor/*` routes (src/lsp/editor-routes.ts).

/** A flow file as the server has it. */
export interface FlowFileText {
  path: string;
  text: string;
  version: string;
  /** False when the playground listens beyond loopback: the server refuses saves. */
  saving: boolean;
}

/** A problem of the text, 1-based line:col to line:col. */
export interface Diagnostic {
  from: { line: number; col: number };
  to: { line: number; col: number };
  severity: 'error' | 'warning' | 'note';
  message: string;
  hint?: string;
  code?: string;
  /** Quick fixes: edits of this text. */
  fixes?: { title: string; edits: { from: Diagnostic['from']; to: Diagnostic['to']; newText: string }[] }[];
}

/** An LSP completion item, the fields the editor shows. */
export interface CompletionItem {
  label: string;
  kind?: number;
  detail?: string;
  documentation?: string | { value: string };
  insertText?: string;
}

/** An answer other than 2xx, with the server's message. */
export class EditorServerError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const data = (await response.json().catch(() => ({}))) as { code?: string; message?: string };
  if (!response.ok)
    throw new EditorServerError(response.status, data.code ?? 'error', data.message ?? response.statusText);
  return data as T;
}

export const editorServer = {
  fileOfFlow: (flow: string) => call<FlowFileText>('GET', `/_editor/file?flow=${encodeURIComponent(flow)}`),
  diagnostics: (path: string, text: string) =>
    call<{ diagnostics: Diagnostic[] }>('POST', '/_editor/diagnostics', { path, text }).then(
      (r) => r.diagnostics,
    ),
  completion: (path: string, text: string, line: number, character: number) =>
    call<{ items: CompletionItem[] }>('POST', '/_editor/completion', { path, text, line, character }).then(
      (r) => r.items,
    ),
  save: (path: string, text: string, version: string) =>
    call<{ version: string }>('PUT', '/_editor/file', { path, text, version }),
};
