/**
 * `botflow stats [<flows dir>] [--flow <id>] [--days <n>] [--db <file> | --database-url <url>] [--json]`:
 * each flow's funnel (runtime/funnel.ts) from the step log a database holds: how many conversations
 * reached each step, where they stopped, retries per input step, median time per step. Opens a SQLite file
 * read-only; on PostgreSQL it only reads.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CampaignReport } from '../engine/campaigns/api.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { BotflowError } from '../errors/index.ts';
import { loadFlows } from '../flows/load.ts';
import { type Config, ConfigError } from '../runtime/config.ts';
import { loadBotConfig } from '../runtime/config-select.ts';
import { type FlowFunnel, funnelOfPages } from '../runtime/funnel.ts';
import { describeFunnel } from '../runtime/funnel-text.ts';
import { systemClock } from '../store/ports/clock.ts';
import { type DatabaseSource, databaseSource, openReader } from '../store/reader.ts';
import { describeCampaign } from './campaign-command.ts';
import { type Command, databaseArgv } from './command.ts';

const HELP = `usage: botflow stats [<flows dir>] [--flow <id>] [--days <n>] [--db <file> | --database-url <url>]
                    [--config <file>] [--bot <name>] [--json] [--campaigns]

Each flow's funnel, from the conversations a database holds (default: database.path or database.url of
the configuration): how many reached each step, how many are there now, how many stopped there, how many
ended there, the answers each input step refused, the texts people typed that nothing took (the latest 5
under the step), and the median time spent on each step. Steps are listed
in the order of the flow files in <flows dir> (default: flows.dir). --days: only conversations of the
last n days (the step log is kept 90 days). The database is only read. Campaigns follow the funnels:
recipients by status, why people were skipped, and each campaign's funnel (reached, started, finished);
--campaigns shows only them (with --json: a list of campaigns).`;

export const command: Command = {
  options: ['flow', 'days', 'db', 'database-url', 'config', 'json', 'campaigns', 'bot'],
  summary: 'each flow’s funnel: how far conversations got, where they stopped, retries, time per step',
  async run(args) {
    let values: ReturnType<typeof parse>['values'];
    let positionals: string[];
    try {
      ({ values, positionals } = parse(args));
    } catch (error) {
      console.error(`botflow stats: ${(error as Error).message}\n\n${HELP}`);
      return 2;
    }
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    const days = values.days === undefined ? undefined : Number(values.days);
    if (days !== undefined && !(days > 0)) {
      console.error(`botflow stats: --days takes a number of days above 0, got "${values.days}"`);
      return 2;
    }
    let config: Config;
    try {
      config = loadBotConfig({ argv: databaseArgv(values) }, values.bot, 'botflow stats');
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.error(`botflow stats: ${error.message}`);
      return 2;
    }
    const dir = positionals[0] ?? config.flows.dir;
    // The flow files only order the steps and list those nobody reached: problems there are not fatal.
    const flows: readonly FlowDefinition[] = existsSync(dir) ? (await loadFlows(dir)).flows : [];
    const since = days === undefined ? 0 : systemClock.now() - days * 86_400_000;
    const query = { since, ...(values.flow ? { flowId: values.flow } : {}) };
    const shown = flows.filter((f) => !values.flow || f.id === values.flow);
    let funnels: FlowFunnel[];
    let campaigns: CampaignReport[];
    try {
      ({ funnels, campaigns } = await tally(databaseSource(config.database), query, shown));
    } catch (error) {
      console.error(`botflow stats: ${(error as Error).message}`);
      return 1;
    }
    if (values.campaigns) {
      if (values.json) console.log(JSON.stringify(campaigns, null, 2));
      else console.log(campaigns.map(describeCampaign).join('\n') || 'no campaigns yet');
      return 0;
    }
    if (values.flow && funnels.length === 0) {
      const known = flows.map((f) => f.id).join(', ') || 'none in the flow files';
      console.error(`botflow stats: no flow "${values.flow}" (flows: ${known})`);
      return 2;
    }
    funnels = funnels.filter((f) => f.sessions > 0 || values.flow);
    if (values.json) console.log(JSON.stringify(funnels, null, 2));
    else {
      console.log(describeFunnel(funnels, days ? { since: `last ${days} days` } : {}));
      if (campaigns.length > 0) console.log(`\nCampaigns\n${campaigns.map(describeCampaign).join('\n')}`);
    }
    return 0;
  },
};

type Query = { since: number; flowId?: string };

/** Tallies the step log of the bot's database, read a page at a time (a SQLite file is opened read-only). */
async function tally(
  source: DatabaseSource,
  query: Query,
  flows: readonly FlowDefinition[],
): Promise<{ funnels: FlowFunnel[]; campaigns: CampaignReport[] }> {
  const reader = await openReader(source);
  try {
    const funnels = await funnelOfPages(reader.stepLog(query), flows);
    const campaigns = (await reader.campaigns()).map(({ campaign: c, figures }) => ({
      ...figures,
      id: c.id,
      name: c.name,
      flow: c.flowId,
      status: c.status,
      recipients: c.recipients,
      createdAt: c.createdAt,
      startAt: c.startAt,
      updatedAt: c.updatedAt,
    }));
    return { funnels, campaigns };
  } catch (error) {
    if (/no such table: step_log/.test((error as Error).message))
      throw new BotflowError(
        'BOTFLOW_DATABASE_UNREADABLE',
        `${reader.where} has no step log yet: botflow run (or botflow migrate${'path' in source ? ` --db ${source.path}` : ''}) adds it; conversations are counted from then on`,
      );
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
      flow: { type: 'string' },
      days: { type: 'string' },
      db: { type: 'string' },
      'database-url': { type: 'string' },
      config: { type: 'string' },
      json: { type: 'boolean' },
      campaigns: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
