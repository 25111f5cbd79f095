/** `botflow lsp [--stdio]`: the language server editors start for flow files, transcripts and catalogs. */
import { setFlagsFromString } from 'node:v8';
import { mapBundledStacks } from '../flows/bundle-code.ts';
import type { Command } from './command.ts';

/**
 * A language server idles beside the editor all day: V8's heap is kept close to what is live (each
 * keystroke's parse of a large flow is garbage at once) instead of growing to several times it. No cap:
 * a larger project still gets the heap it needs. Measured by `npm run bench -- lsp`.
 */
export const LSP_HEAP_FLAGS = ['--heap-growing-percent=50', '--semi-space-growth-factor=1'];

const HELP = `usage: botflow lsp [--stdio]

Runs botflow's language server over standard input and output (the only transport; --stdio is accepted
because editors pass it). It reads the project of the editor's workspace the way botflow run does (the
configuration's flows folder, default flows/: its flows, locales/*.ftl, registry.ts and transcripts) and
gives diagnostics as you type (botflow check's problems, with quick fixes), completion, hover, go to
definition, references, rename and the outline. Nothing but the protocol is written to standard output;
logs go to standard error. Setting up an editor: docs/editor.md.`;

export const command: Command = {
  options: ['stdio'],
  summary: 'the language server for editors (stdio): diagnostics, completion, hover, rename',
  async run(args) {
    if (args.includes('--help') || args.includes('-h')) {
      console.log(HELP);
      return 0;
    }
    const unknown = args.find((a) => a !== '--stdio');
    if (unknown) {
      console.error(`botflow lsp: unknown argument ${unknown}\n\n${HELP}`);
      return 2;
    }
    for (const flag of LSP_HEAP_FLAGS) setFlagsFromString(flag);
    // Only the first line of a registry's error is shown (a diagnostic): no source maps to keep.
    mapBundledStacks(false);
    // Standard output carries the protocol: whatever the project's code prints goes to standard error.
    console.log = console.info = console.debug = console.error;
    const { createConnection, ProposedFeatures } = await import('vscode-languageserver/node');
    const { startServer } = await import('../lsp/server.ts');
    const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
    startServer(connection);
    // The connection ends the process on `exit`; until then the command never returns.
    return new Promise<number>(() => {});
  },
};
