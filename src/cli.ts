/**
 * The `botflow` command. Each subcommand is a file of `src/cli/`, loaded on demand, so `botflow check`
 * never opens a database and `botflow sandbox` never loads the engine. Commands sit above everything
 * they drive: no module below imports the CLI.
 */
import type { Command } from './cli/command.ts';
import { closest } from './flows/problems.ts';

export type { Command } from './cli/command.ts';

type CommandLoader = { summary: string; load: () => Promise<{ command: Command }> };

// One line per subcommand; keep them sorted.
const commands: Record<string, CommandLoader> = {
  bots: {
    summary: 'the bots a deployment serves: list, add, remove, pause, resume',
    load: () => import('./cli/bots-command.ts'),
  },
  campaign: {
    summary: 'campaigns: plan (count and sample), start, pause, resume, cancel, status',
    load: () => import('./cli/campaign-command.ts'),
  },
  check: {
    summary: 'check flow files (schema, references, i18n, limits)',
    load: () => import('./cli/check-command.ts'),
  },
  event: {
    summary: 'send an external event to a conversation: into the database, or to a running bot (--url)',
    load: () => import('./cli/event-command.ts'),
  },
  flows: {
    summary: 'flows plan: before a deploy, what changed flows would do to the conversations running now',
    load: () => import('./cli/flows-command.ts'),
  },
  graph: {
    summary: 'print a flow as a Mermaid state diagram',
    load: () => import('./cli/graph-command.ts'),
  },
  init: {
    summary: 'create a new bot project: flows, a transcript test, a registry, config',
    load: () => import('./cli/init-command.ts'),
  },
  lsp: {
    summary: 'the language server for editors (stdio): diagnostics, completion, hover, rename',
    load: () => import('./cli/lsp-command.ts'),
  },
  migrate: {
    summary: 'apply pending database migrations (--status: list them)',
    load: () => import('./cli/migrate-command.ts'),
  },
  outbox: {
    summary: 'list the calls that failed for good; send them again (retry) or give them up (drop)',
    load: () => import('./cli/outbox-command.ts'),
  },
  replay: {
    summary: 'replay a recording against the current flows; report the calls that differ',
    load: () => import('./cli/replay-command.ts'),
  },
  run: {
    summary: 'run the bot (no token: sandbox + example flows + web chat)',
    load: () => import('./cli/run-command.ts'),
  },
  sandbox: { summary: 'run the local platform sandbox', load: () => import('./cli/sandbox-command.ts') },
  schema: { summary: 'print the JSON Schema of flow files', load: () => import('./cli/schema-command.ts') },
  stats: {
    summary: 'each flow’s funnel: how far conversations got, where they stopped, retries, time per step',
    load: () => import('./cli/stats-command.ts'),
  },
  storyboard: {
    summary: 'write every step of the flows as the person sees it, in every locale, as one HTML file',
    load: () => import('./cli/storyboard-command.ts'),
  },
  test: {
    summary: 'run transcripts (*.test.yaml) against the flows (--coverage: what none reached)',
    load: () => import('./cli/test-command.ts'),
  },
  webhook: {
    summary: 'manage webhook subscriptions: set <url>, list, delete <url>',
    load: () => import('./cli/webhook-command.ts'),
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length), 4);
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'usage: botflow <command> [options]',
    '',
    'commands:',
    ...lines,
    '',
    'botflow <command> --help for details',
  ].join('\n');
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name ? 0 : 2;
  }
  const entry = commands[name];
  if (!entry) {
    console.error(`botflow: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const { command } = await entry.load();
  const unknown = command.options ? unknownOption(rest, command.options) : undefined;
  if (unknown) {
    console.error(`botflow ${name}: ${unknown}\nbotflow ${name} --help lists every option`);
    return 2;
  }
  return command.run(rest);
}

/** The first `--option` in `args` that the command does not know, as a message with a guess. */
export function unknownOption(args: readonly string[], options: readonly string[]): string | undefined {
  const known = [...options, 'help'];
  for (const arg of args) {
    if (arg === '--') break;
    if (!arg.startsWith('--')) continue;
    const name = arg.slice(2).split('=')[0]!;
    if (known.includes(name) || (name.startsWith('no-') && known.includes(name.slice(3)))) continue;
    const negated = name.startsWith('no-') && !known.includes(name) ? 'no-' : '';
    const guess = closest(name.slice(negated.length), known);
    return `unknown option --${name}${guess ? `; did you mean --${negated}${guess}?` : ''}`;
  }
  return undefined;
}
