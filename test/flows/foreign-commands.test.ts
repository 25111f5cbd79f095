/** Another flow's command mid-wizard is refused with a word on how to go on, and uses up no retry. */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';

const flow = `flow: wiz
start: ask
triggers:
  - bot_started: true
commands:
  cancel: { say: "Stopped.", goto: bye }
steps:
  ask:
    type: input
    say: "Your name?"
    input: text
    retries: { max: 2, exhausted: { say: "Let's stop.", goto: bye } }
    save: name
    next: bye
  bye:
    type: end
    say: "Bye {{name}}"
`;

const transcript = `flow: wiz
name: three foreign commands cancel nothing
turns:
  - start: true
    bot: { send: "Your name?" }
  - say: /support
    bot: { send: "/support is not available right now: please finish this step first, or send /cancel to stop." }
  - say: /settings
    bot: { send: ~not available right now }
  - say: /help
    bot: { send: ~not available right now }
  - say: Ann
    bot: { send: "Bye Ann" }
`;

describe('commands of other flows', () => {
  it('are never wrong answers: refused, no retry used, the step goes on', async () => {
    const { flows, problems } = compileSources(
      [{ file: 'wiz.flow.yaml', source: flow }],
      EMPTY_REGISTRY,
      new Map(),
    );
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    const parsed = parseTranscripts(transcript, 'wiz.test.yaml');
    expect(parsed.problems).toEqual([]);
    const result = await runTranscript(parsed.transcripts[0]!, { flows });
    expect(result.failure?.report ?? 'passed').toBe('passed');
  }, 30_000);
});
