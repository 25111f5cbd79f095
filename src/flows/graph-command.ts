/** `botflow graph <file>`: prints a flow as a Mermaid state diagram. */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Command } from '../cli.ts';
import { FLOW_SUFFIX, loadFlows } from './load.ts';
import { flowToMermaid } from './mermaid.ts';
import { formatProblem } from './problems.ts';

const USAGE =
  'usage: botflow graph <dir>/<id>.flow.yaml\n\nPrints the compiled flow as a Mermaid stateDiagram-v2.';

export const command: Command = {
  options: [],
  summary: 'print a flow as a Mermaid state diagram',
  async run(args) {
    const file = args.find((a) => !a.startsWith('-'));
    const help = args.includes('--help') || args.includes('-h');
    if (!file || help) {
      (help ? console.log : console.error)(USAGE);
      return help ? 0 : 2;
    }
    if (!existsSync(file)) {
      console.error(`botflow graph: no such file: ${file}`);
      return 2;
    }
    if (statSync(file).isDirectory() || !file.endsWith(FLOW_SUFFIX)) {
      console.error(
        `botflow graph: ${file} is not a flow file; name one *${FLOW_SUFFIX} file, e.g. botflow graph flows/signup${FLOW_SUFFIX}`,
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
