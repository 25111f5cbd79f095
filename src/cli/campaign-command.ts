/**
 * `botflow campaign plan|start|pause|resume|cancel|status`: campaigns on the bot's database. `plan` and
 * `start` take a campaign file (`campaigns/<name>.campaign.yaml`, or its name); `plan` only reads: how many
 * people match now and a sample of 5. `start` snapshots the segment; the running bot's campaign runner
 * (the process that sends) releases the recipients. The other actions take a campaign's id or name.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type CampaignReport, type CampaignsApi, campaignsApi } from '../engine/campaigns/api.ts';
import { CAMPAIGN_SUFFIX, readCampaignFile } from '../engine/campaigns/file.ts';
import { isBotflowError } from '../errors/index.ts';
import { loadFlows, readFlowSources } from '../flows/load.ts';
import { formatProblem, hasErrors } from '../flows/problems.ts';
import { EMPTY_REGISTRY } from '../flows/registry.ts';
import { type Config, ConfigError } from '../runtime/config.ts';
import { loadBotConfig } from '../runtime/config-select.ts';
import { type OpenStore, openStore } from '../store/open.ts';
import { systemClock } from '../store/ports/clock.ts';
import { databaseSource } from '../store/reader.ts';
import { catalogTexts, checkCampaignSource, type KnownFlows, knownFlows } from './campaign-check.ts';
import { type Command, databaseArgv } from './command.ts';

const HELP = `usage: botflow campaign plan <file | name> [--sample N]
       botflow campaign start <file | name>
       botflow campaign pause | resume | cancel <id | name>
       botflow campaign status [<id | name>] [--recipients <status>]
options: --dir <campaigns folder> (default: campaigns), --flows <dir> (default: flows.dir),
         --db <file> | --database-url <postgres://…>, --config <file>, --bot <name>, --json

A campaign starts a flow for each person of a segment, at a rate, with quiet hours and a cap
(docs/campaigns.md). plan and start first check the file as botflow check does (against the flows of
--flows) and stop at an error. plan prints how many people match now and a sample, and sends nothing.
start snapshots the segment into queued recipients: the running bot releases them. pause, resume and cancel
hold for every process and across restarts. status: each campaign's recipients by status, the reasons
people were skipped, and the funnel (reached, started, finished).`;

const ACTIONS = ['plan', 'start', 'pause', 'resume', 'cancel', 'status'] as const;
type Action = (typeof ACTIONS)[number];

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      bot: { type: 'string' },
      dir: { type: 'string' },
      flows: { type: 'string' },
      sample: { type: 'string' },
      recipients: { type: 'string' },
      db: { type: 'string' },
      'database-url': { type: 'string' },
      config: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** The campaign file an argument names: a path, or `<dir>/<name>.campaign.yaml`. */
function fileOf(arg: string, dir: string): string {
  if (existsSync(arg)) return arg;
  const named = join(dir, `${arg}${CAMPAIGN_SUFFIX}`);
  return existsSync(named) ? named : arg;
}

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** A campaign's lines for people. */
export function describeCampaign(c: CampaignReport): string {
  const s = c.byStatus;
  const reasons = Object.entries(c.reasons)
    .map(([r, n]) => `${r} ${n}`)
    .join(', ');
  return [
    `${c.name} (${c.id}): ${c.status}, flow ${c.flow}, ${c.recipients} recipient(s), from ${when(c.startAt)}`,
    `  queued ${s.queued}, released ${s.released}, sent ${s.sent}, failed ${s.failed}, skipped ${s.skipped}${reasons ? ` (${reasons})` : ''}`,
    `  funnel: reached ${c.funnel.reached}, started ${c.funnel.started}, finished ${c.funnel.finished}`,
  ].join('\n');
}

async function act(
  api: CampaignsApi,
  action: Action,
  arg: string | undefined,
  values: ReturnType<typeof parse>['values'],
  dir: string,
  /** The flows of the flows folder, when there is one: campaign files are checked against them. */
  known: () => KnownFlows | undefined,
) {
  const json = values.json === true;
  const print = (value: unknown, text: string) => console.log(json ? JSON.stringify(value, null, 2) : text);
  if (action === 'plan' || action === 'start') {
    const file = fileOf(arg!, dir);
    // What botflow check says of the file, all of it; an error stops here, before the database is asked.
    const flows = existsSync(file) ? known() : undefined;
    if (flows) {
      const problems = checkCampaignSource(readFileSync(file, 'utf8'), file, flows);
      for (const p of problems) console.error(formatProblem(p));
      if (hasErrors(problems)) {
        const n = problems.filter((p) => p.severity === 'error').length;
        console.error(
          `botflow campaign: ${file} has ${n} error(s) (botflow check shows them too): nothing was ${action === 'plan' ? 'planned' : 'started'}`,
        );
        return 2;
      }
    }
    const { name, spec } = readCampaignFile(file);
    if (action === 'plan') {
      const sample = values.sample === undefined ? 5 : Number(values.sample);
      const plan = await api.plan(spec, { name, sample });
      const lines = plan.sample.map(
        (p) =>
          `  ${p.conversationKey}  ${p.locale ?? '-'}  last active ${when(p.lastActiveAt)}  ${p.flowId} › ${p.step}`,
      );
      print(plan, [`${name}: ${plan.count} person(s) match now; nothing was sent`, ...lines].join('\n'));
      return 0;
    }
    const started = await api.start(spec, { name });
    print(started, `started ${describeCampaign(started)}`);
    return 0;
  }
  if (action === 'status') {
    if (!arg) {
      const all = await api.list();
      print(all, all.map(describeCampaign).join('\n') || 'no campaigns yet');
      return 0;
    }
    const report = await api.status(arg);
    if (values.recipients) {
      const rows = await api.recipients(arg, { status: values.recipients as never, limit: 100 });
      print(
        rows,
        rows.map((r) => `${r.conversationKey}  ${r.status}${r.reason ? `  ${r.reason}` : ''}`).join('\n'),
      );
      return 0;
    }
    print(report, describeCampaign(report));
    return 0;
  }
  const report = await api[action](arg!);
  print(report, describeCampaign(report));
  return 0;
}

/** The `campaign` subcommand. */
export const command: Command = {
  summary: 'campaigns: plan (count and sample), start, pause, resume, cancel, status',
  async run(args) {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(args);
    } catch (error) {
      console.error(`botflow campaign: ${(error as Error).message}\n\n${HELP}`);
      return 2;
    }
    const { values, positionals } = parsed;
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    const [action, arg] = positionals as [string | undefined, string | undefined];
    if (!ACTIONS.includes(action as Action) || (action !== 'status' && !arg)) {
      console.error(`botflow campaign: give an action (${ACTIONS.join(', ')}) and a campaign\n\n${HELP}`);
      return 2;
    }
    let config: Config;
    try {
      config = loadBotConfig({ argv: databaseArgv(values) }, values.bot, 'botflow campaign');
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.error(`botflow campaign: ${error.message}`);
      return 2;
    }
    const flowsDir = values.flows ?? config.flows.dir;
    const loaded = existsSync(flowsDir) ? await loadFlows(flowsDir) : undefined;
    const flowIds = loaded?.flows.map((f) => f.id) ?? [];
    // Only plan and start check a file against the flows (their sources are read again, for their words).
    const known = () =>
      loaded
        ? knownFlows(readFlowSources(flowsDir), loaded.registry ?? EMPTY_REGISTRY, catalogTexts(flowsDir))
        : undefined;
    let opened: OpenStore;
    try {
      opened = await openStore(databaseSource(config.database));
    } catch (error) {
      console.error(`botflow campaign: ${(error as Error).message}`);
      return 2;
    }
    const api = campaignsApi({
      store: opened.store.campaigns,
      now: systemClock.now,
      flowIds: () => flowIds,
      release: async () => 0, // the running bot releases
      wake: () => {},
    });
    try {
      return await act(api, action as Action, arg, values, values.dir ?? 'campaigns', known);
    } catch (error) {
      if (!isBotflowError(error)) throw error;
      console.error(`botflow campaign: ${error.message}`);
      return error.code === 'BOTFLOW_CAMPAIGN_NOT_FOUND' || error.code === 'BOTFLOW_CAMPAIGN_STATE' ? 1 : 2;
    } finally {
      await opened.close();
    }
  },
};
