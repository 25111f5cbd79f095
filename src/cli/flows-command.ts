/**
 * `botflow flows plan [<flows dir>] [--db <file> | --database-url <url>]`: before deploying changed flow files, what would become
 * of the conversations running now (runtime/flows-plan.ts): which stay on their version, which a
 * `migrate:` block moves and to which step, which would be stranded. Opens the database read-only.
 * Exit code 1 when a conversation would be stranded (a deploy pipeline can stop on it).
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { describePlan, type PlanRow, planFlowChange } from '../engine/flows-plan.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { BotflowError } from '../errors/index.ts';
import { loadFlows, loadRegistry } from '../flows/load.ts';
import { formatProblem } from '../flows/problems.ts';
import { rebuildFlow } from '../flows/rebuild.ts';
import { type Config, ConfigError } from '../runtime/config.ts';
import { loadBotConfig } from '../runtime/config-select.ts';
import { type DatabaseSource, databaseSource, openReader } from '../store/reader.ts';
import { type Command, databaseArgv } from './command.ts';

const HELP = `usage: botflow flows plan [<flows dir>] [--db <file> | --database-url <url>] [--config <file>]
                         [--bot <name>] [--json]

Before deploying changed flow files: for every flow version that running conversations are on, whether
they stay on it (rebuilt from the source stored with it), move to the new version through its migrate:
block (to which step), or would be stranded. Reads the database (default: database.path, or database.url
on PostgreSQL) and writes nothing. Exit code 1 when any conversation would be stranded.`;

export const command: Command = {
  options: ['db', 'database-url', 'config', 'json', 'bot'],
  summary: 'before a deploy: what changed flows would do to the conversations running now',
  async run(args) {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(args);
    } catch (error) {
      console.error(`botflow flows: ${(error as Error).message}\n\n${HELP}`);
      return 2;
    }
    const { values, positionals } = parsed;
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    const [action, dirArg] = positionals;
    if (action !== 'plan') {
      console.error(`botflow flows: ${action ? `unknown action "${action}"` : 'say plan'}\n\n${HELP}`);
      return 2;
    }
    let config: Config;
    try {
      config = loadBotConfig({ argv: databaseArgv(values) }, values.bot, 'botflow flows plan');
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.error(`botflow flows: ${error.message}`);
      return 2;
    }
    const dir = dirArg ?? config.flows.dir;
    const url = config.database.url?.reveal();
    const path = config.database.path;
    if (url === undefined && !existsSync(path)) {
      console.error(`botflow flows plan: no database at ${path}: give --db, or run from the bot's folder`);
      return 2;
    }
    const { flows, problems } = await loadFlows(dir);
    const errors = problems.filter((p) => p.severity === 'error');
    if (errors.length > 0) {
      for (const p of errors) console.error(formatProblem(p));
      console.error(`botflow flows plan: the flows in ${dir} have problems (above): fix them first`);
      return 2;
    }
    const { registry } = await loadRegistry(dir);
    const rebuild = (source: string) => rebuildFlow(source, { registry });
    let rows: PlanRow[];
    try {
      rows = await plan(databaseSource(config.database), flows, rebuild);
    } catch (error) {
      console.error(`botflow flows plan: ${(error as Error).message}`);
      return 2;
    }
    if (values.json) console.log(JSON.stringify(rows, null, 2));
    else for (const line of describePlan(rows)) console.log(line);
    return rows.some((r) => r.stranded > 0) ? 1 : 0;
  },
};

type Rebuild = (source: string) => FlowDefinition;

/** The plan of a flow change over the bot's database (read only). */
async function plan(source: DatabaseSource, flows: FlowDefinition[], rebuild: Rebuild): Promise<PlanRow[]> {
  const reader = await openReader(source);
  try {
    const reads = await reader.planReads(new Map(flows.map((f) => [f.id, f.version])));
    return planFlowChange({ flows, ...reads, rebuild });
  } catch (error) {
    throw new BotflowError(
      'BOTFLOW_DATABASE_UNREADABLE',
      `could not read ${reader.where}: ${(error as Error).message} (run botflow migrate first?)`,
    );
  } finally {
    await reader.close();
  }
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      bot: { type: 'string' },
      db: { type: 'string' },
      'database-url': { type: 'string' },
      config: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
