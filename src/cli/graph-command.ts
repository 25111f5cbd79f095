/** `botflow graph <file>`: prints a flow as a Mermaid state diagram. */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { FLOW_SUFFIX, loadFlows } from '../flows/load.ts';
import { flowToMermaid } from '../flows/mermaid.ts';
import { formatProblem } from '../flows/problems.ts';
import type { Command } from './command.ts';

export const command: Command = {
  options: [],
  summary: 'print a flow as a Mermaid state diagram',
  async run(args) {
    const usage =
      'usage: botflow graph <dir>/<id>.flow.yaml\n\nPrints the compiled flow as a Mermaid stateDiagram-v2.';
    if (args.includes('--help') || args.includes('-h')) {
      console.log(usage);
      return 0;
    }
    const file = args.find((a) => !a.startsWith('-'));
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
