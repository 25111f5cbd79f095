/** `botflow schema`: prints the flow file format as JSON Schema (for the YAML language server). */

import { existsSync } from 'node:fs';
import { projectKinds } from '../flows/kinds/custom-adapter.ts';
import { loadRegistry } from '../flows/load.ts';
import { formatProblem } from '../flows/problems.ts';
import { flowJsonSchema } from '../flows/schema.ts';
import { type Command, takeBotFlowsDir } from './command.ts';

export const command: Command = {
  options: ['bot', 'config'],
  summary:
    "print the JSON Schema of flow files, with the project's own step kinds (botflow schema > flows/flow.schema.json)",
  async run(args) {
    if (args.includes('--help') || args.includes('-h')) {
      console.log(
        "usage: botflow schema [flows-dir | --bot <name>] > flows/flow.schema.json\n\nPrints the JSON Schema of flow files, for editors: start each flow file with\n# yaml-language-server: $schema=./flow.schema.json\nThe project's own step kinds (defineStepKind, in <flows-dir>/registry.ts; default flows/, or that bot's folder with --bot) are included.",
      );
      return 0;
    }
    const botDir = takeBotFlowsDir(args, 'botflow schema');
    if (botDir === null) return 2;
    if (args.length > 1 || args[0]?.startsWith('-') || (botDir !== undefined && args.length > 0)) {
      console.error(
        `botflow schema: takes one folder at most (got ${args.join(' ')}); try botflow schema --help`,
      );
      return 2;
    }
    const dir = args[0] ?? botDir ?? 'flows';
    if (args[0] && !existsSync(dir)) {
      console.error(`botflow schema: no folder ${dir}`);
      return 2;
    }
    const loaded = existsSync(dir) ? await loadRegistry(dir) : undefined;
    if (loaded?.problems.length) {
      for (const p of loaded.problems) console.error(formatProblem(p));
      return 1;
    }
    process.stdout.write(`${JSON.stringify(flowJsonSchema(projectKinds(loaded?.registry)), null, 2)}\n`);
    return 0;
  },
};
