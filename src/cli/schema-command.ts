/** `botflow schema`: prints the flow file format as JSON Schema (for the YAML language server). */

import { flowJsonSchema } from '../flows/schema.ts';
import type { Command } from './command.ts';

export const command: Command = {
  options: [],
  summary: 'print the JSON Schema of flow files (botflow schema > flows/flow.schema.json)',
  async run(args) {
    if (args.includes('--help') || args.includes('-h')) {
      console.log(
        'usage: botflow schema > flows/flow.schema.json\n\nPrints the JSON Schema of flow files, for editors: start each flow file with\n# yaml-language-server: $schema=./flow.schema.json',
      );
      return 0;
    }
    if (args.length > 0) {
      console.error(`botflow schema: takes no arguments (got ${args.join(' ')}); try botflow schema --help`);
      return 2;
    }
    process.stdout.write(`${JSON.stringify(flowJsonSchema(), null, 2)}\n`);
    return 0;
  },
};
