/** `botflow test`: exit codes, the per-transcript lines, the coverage report and skeleton files. */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTests } from '../../src/cli/test-command.ts';
import { parseTranscripts } from '../../src/testing/load.ts';

const dir = mkdtempSync(join(tmpdir(), 'botflow-test-command-'));

async function run(args: string[]) {
  const lines: string[] = [];
  const code = await runTests(args, (l) => lines.push(l));
  return { code, out: lines.join('\n') };
}

describe('botflow test', () => {
  it('passes the help transcripts; --coverage --skeletons writes valid skeleton transcripts for the rest', async () => {
    const skeletons = join(dir, 'skeletons');
    const { code, out } = await run(['flows/tests/help.test.yaml', '--coverage', '--skeletons', skeletons]);
    expect(out).toContain('✓ help › /help explains and ends');
    expect(out).toContain('1 passed, 0 failed (1 transcripts)');
    expect(out).toMatch(/help +steps 2\/2 \(100%\)/);
    expect(out).toMatch(/signup +steps 0\/10 \(0%\)/);
    expect(code).toBe(1); // coverage is incomplete
    const file = join(skeletons, 'signup.skeleton.yaml');
    expect(existsSync(file)).toBe(true);
    const parsed = parseTranscripts(readFileSync(file, 'utf8'), file);
    expect(parsed.problems).toEqual([]);
    expect(parsed.transcripts.length).toBeGreaterThan(5);
  }, 60_000);

  it('exits 1 with the failing turn when a transcript fails, 2 for a broken file', async () => {
    const failing = join(dir, 'failing.test.yaml');
    writeFileSync(failing, 'flow: help\nname: wrong\nturns:\n  - say: /help\n    bot: { send: Hello }\n');
    const failed = await run([failing]);
    expect(failed.code).toBe(1);
    expect(failed.out).toContain('✗ help › wrong');
    expect(failed.out).toContain('✗ send "Hello"');
    const broken = join(dir, 'broken.test.yaml');
    writeFileSync(broken, 'flow: help\nname: broken\nturns:\n  - sey: hi\n    bot: nothing\n');
    const bad = await run([broken]);
    expect(bad.code).toBe(2);
    expect(bad.out).toContain('broken.test.yaml:4:5: error: unknown key "sey"');
    expect(bad.out).toContain('did you mean "say"?');
    expect((await run([join(dir, 'nothing-here')])).code).toBe(2);
  }, 60_000);

  it('exits 2 for a transcript naming a flow that does not exist, with a guess', async () => {
    const typo = join(dir, 'typo.test.yaml');
    writeFileSync(typo, 'flow: hepl\nname: typo\nturns:\n  - say: /help\n    bot: nothing\n');
    const result = await run([typo]);
    expect(result.code).toBe(2);
    expect(result.out).toMatch(
      /typo\.test\.yaml:1: error: the transcript "typo" names flow "hepl", which flows does not have; did you mean "help"\?/,
    );
  }, 60_000);
});
