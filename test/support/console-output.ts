/**
 * Runs a CLI command in the test's process and keeps what it prints (console.log and console.error, in
 * order): `const out = consoleOutput(); expect(await out.run(command, args)).toBe(0); out.lines`.
 */
import { afterEach } from 'vitest';
import type { Command } from '../../src/cli/command.ts';

export function consoleOutput(): { lines: string[]; run(command: Command, args: string[]): Promise<number> } {
  const log = console.log;
  const error = console.error;
  const restore = () => {
    console.log = log;
    console.error = error;
  };
  afterEach(restore);
  const output = {
    lines: [] as string[],
    async run(command: Command, args: string[]): Promise<number> {
      output.lines = [];
      const keep = (line: string) => output.lines.push(line);
      console.log = keep;
      console.error = keep;
      try {
        return await command.run(args);
      } finally {
        restore();
      }
    },
  };
  return output;
}
