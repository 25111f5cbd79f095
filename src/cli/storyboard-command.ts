/**
 * `botflow storyboard [<flows dir>] [--flow <id>] [--out <file>]`: every step of the flows as the person
 * would see it, in every locale, as one self-contained HTML file (the playground's storyboard, without
 * running anything: to review a flow or send it to someone).
 */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadFlows } from '../flows/load.ts';
import { formatProblem } from '../flows/problems.ts';
import { buildStoryboard, storyboardHtml } from '../runtime/storyboard.ts';
import { type Command, takeBotFlowsDir } from './command.ts';

const USAGE = `usage: botflow storyboard [<flows dir> | --bot <name>] [--flow <id>] [--out <file>]

Writes every step of the flows (default folder: flows) as the person would see it, in every locale, with
links along the transitions, as one HTML file (default: storyboard.html). --flow keeps one flow. --bot
<name>: that bot's flows folder (bots: in botflow.config.yaml, docs/bots.md).`;

export const command: Command = {
  options: ['flow', 'out', 'bot', 'config'],
  summary: 'write every step of the flows as the person sees it, in every locale, as one HTML file',
  async run(args) {
    let values: { flow?: string; out?: string; help?: boolean };
    let positionals: string[];
    const botDir = takeBotFlowsDir(args, 'botflow storyboard');
    if (botDir === null) return 2;
    try {
      ({ values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { flow: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      }));
    } catch (error) {
      console.error(`botflow storyboard: ${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    const dir = positionals[0] ?? botDir ?? 'flows';
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      console.error(
        `botflow storyboard: ${dir} is not a folder of flows: give the folder, e.g. botflow storyboard flows`,
      );
      return 2;
    }
    const { flows, problems } = await loadFlows(dir);
    const errors = problems.filter((p) => p.severity === 'error');
    if (errors.length > 0) {
      for (const p of errors) console.error(formatProblem(p));
      console.error(`botflow storyboard: the flows in ${dir} have problems (above): fix them first`);
      return 1;
    }
    const chosen = values.flow ? flows.filter((f) => f.id === values.flow) : flows;
    if (chosen.length === 0) {
      console.error(
        `botflow storyboard: no flow "${values.flow}" in ${dir} (flows: ${flows.map((f) => f.id).join(', ') || 'none'})`,
      );
      return 2;
    }
    const out = values.out ?? 'storyboard.html';
    const boards = chosen.map((flow) => buildStoryboard(flow));
    writeFileSync(out, storyboardHtml(boards, values.flow ? `${values.flow}: storyboard` : 'storyboard'));
    const steps = boards.reduce((n, b) => n + b.steps.length, 0);
    console.log(`wrote ${out}: ${boards.length} flow(s), ${steps} steps`);
    return 0;
  },
};
