/** `botflow graph <file>`: prints a flow as a Mermaid state diagram. */
import { basename, dirname } from 'node:path';
import type { Command } from '../cli.ts';
import { FLOW_SUFFIX, loadFlows } from './load.ts';
import { flowToMermaid } from './mermaid.ts';
import { formatProblem } from './problems.ts';

export const command: Command = {
  summary: 'print a flow as a Mermaid state diagram',
  async run(args) {
    const file = args.find((a) => !a.startsWith('-'));
    if (!file || args.includes('--help')) {
      console.log(
        'usage: botflow graph <dir>/<id>.flow.yaml\n\nPrints the compiled flow as a Mermaid stateDiagram-v2.',
      );
      return file ? 0 : 2;
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
