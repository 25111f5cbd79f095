/** Every command answers --help with exit 0; wrong arguments get a clear message and exit 2. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli.ts';

afterEach(() => vi.restoreAllMocks());

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => out.push(parts.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => err.push(parts.join(' ')));
  vi.spyOn(process.stdout, 'write').mockImplementation(
    (chunk: string | Uint8Array) => out.push(String(chunk)) > 0,
  );
  vi.spyOn(process.stderr, 'write').mockImplementation(
    (chunk: string | Uint8Array) => err.push(String(chunk)) > 0,
  );
  const code = await main(args);
  vi.restoreAllMocks();
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const COMMANDS = [
  'check',
  'event',
  'graph',
  'init',
  'migrate',
  'outbox',
  'replay',
  'run',
  'sandbox',
  'schema',
  'stats',
  'storyboard',
  'test',
  'webhook',
];

describe('botflow CLI', () => {
  for (const name of COMMANDS) {
    it(`botflow ${name} --help prints its usage and exits 0`, async () => {
      const { code, out, err } = await run([name, '--help']);
      expect(code).toBe(0);
      expect(`${out}${err}`).toMatch(/usage: botflow/);
      // An option's placeholder never runs into its description (`--database-url <value>database.url`).
      expect(`${out}${err}`).not.toMatch(/<[\w:/.…-]+>[A-Za-z]/);
    });
  }

  it('botflow graph without a file, or with a folder, says what to give (exit 2)', async () => {
    expect(await run(['graph'])).toMatchObject({ code: 2, err: expect.stringContaining('give a flow file') });
    expect(await run(['graph', 'flows'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('flows is a folder'),
    });
  });

  it('botflow check accepts one flow file, and names a path that does not exist (exit 2)', async () => {
    expect(await run(['check', 'flows/signup.flow.yaml'])).toMatchObject({
      code: 0,
      out: expect.stringContaining('1 flow file(s), 1 compiled: 0 error(s)'),
    });
    expect(await run(['check', 'no-such-folder'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('no-such-folder does not exist'),
    });
  });
});
