/** `botflow schema`: prints the flow file format as JSON Schema (for the YAML language server). */
import type { Command } from '../cli.ts';
import { flowJsonSchema } from './schema.ts';

export const command: Command = {
  summary: 'print the JSON Schema of flow files (botflow schema > flows/flow.schema.json)',
  async run() {
    process.stdout.write(`${JSON.stringify(flowJsonSchema(), null, 2)}\n`);
    return 0;
  },
};
