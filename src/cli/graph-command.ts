/** `botflow graph <file>`: prints a flow as a Mermaid state diagram. */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { FLOW_SUFFIX, loadFlows } from '../flows/load.ts';
import { flowToMermaid } from '../flows/mermaid.ts';
import { formatProblem } from '../flows/problems.ts';
import { type Command, takeBotFlowsDir } from './command.ts';

export const command: Command = {
  options: ['bot', 'config'],
  summary: 'print a flow as a Mermaid state diagram',
  async run(args) {
    const usage =
      'usage: botflow graph <dir>/<id>.flow.yaml | <id> --bot <name>\n\nPrints the compiled flow as a Mermaid stateDiagram-v2. ' +
      "With --bot, the flow <id> of that bot's flows folder (bots: in botflow.config.yaml, docs/bots.md).";
    if (args.includes('--help') || args.includes('-h')) {
      console.log(usage);
      return 0;
    }
    const botDir = takeBotFlowsDir(args, 'botflow graph');
    if (botDir === null) return 2;
    const given = args.find((a) => !a.startsWith('-'));
    const file =
      botDir !== undefined && given !== undefined && !given.endsWith(FLOW_SUFFIX)
        ? join(botDir, `${given}${FLOW_SUFFIX}`)
        : given;
    if (!file) {
      console.error(`botflow graph: give a flow file\n\n${usage}`);
      return 2;
    }
    if (!existsSync(file) || !statSync(file).isFile() || !file.endsWith(FLOW_SUFFIX)) {
      const what = !existsSync(file)
        ? 'does not exist'
        : statSync(file).isFile()
          ? `is not a ${FLOW_SUFFIX} file`
          : 'is a folder';
      console.error(
        `botflow graph: ${file} ${what}: give one flow file, e.g. botflow graph flows/signup${FLOW_SUFFIX}`,
      );
      return 2;
    }
    const id = basename(file).replace(FLOW_SUFFIX, '');
    const { flows, problems } = await loadFlows(dirname(file));
    const flow = flows.find((f) => f.id === id);
    if (!flow) {
      for (const p of problems) console.error(formatProblem(p));
      console.error(`botflow graph: ${file} did not compile (see above); run botflow check ${dirname(file)}`);
      return 1;
    }
    process.stdout.write(flowToMermaid(flow));
    return 0;
  },
};
