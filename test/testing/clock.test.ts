/** Validators and guards read the engine's clock: in a transcript, the virtual clock it sets with `clock:`. */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';

const registry = defineRegistry({
  validators: {
    /** A date (YYYY-MM-DD) not before today, by the engine's clock. */
    not_past: (value, { now }) =>
      String(value) >= new Date(now).toISOString().slice(0, 10) || 'That day is over.',
  },
});

const flow = `flow: booking
start: ask_date
triggers:
  - bot_started: true
steps:
  ask_date:
    type: input
    say: "Which day?"
    input: date
    validate:
      - { rule: not_past, error: "That day is over." }
    retries: { max: 3, exhausted: { goto: stop } }
    save: day
    next: done
  done:
    type: end
    say: "Booked for {{day}}."
  stop:
    type: end
`;

const transcript = (clock: string) => `flow: booking
name: a date by the virtual clock
clock: ${clock}
turns:
  - start: true
    bot: { send: "Which day?" }
  - say: "2026-03-01"
    bot: { send: "That day is over." }
  - say: "2026-03-03"
    bot: { send: "Booked for 2026-03-03." }
`;

describe('the clock validators see', () => {
  it('is the transcript clock, so "not in the past" means the same on any day the test runs', async () => {
    const { flows, problems } = compileSources(
      [{ file: 'booking.flow.yaml', source: flow }],
      registry,
      new Map(),
    );
    expect(problems).toEqual([]);
    const parsed = parseTranscripts(transcript('2026-03-02T09:00:00Z'), 'booking.test.yaml');
    expect(parsed.problems).toEqual([]);
    const result = await runTranscript(parsed.transcripts[0]!, { flows });
    expect(result.failure?.report ?? 'passed').toBe('passed');
  }, 30_000);

  it('refuses a clock that is not a date', () => {
    const parsed = parseTranscripts(transcript('"next tuesday"'), 'booking.test.yaml');
    expect(parsed.problems.map((p) => p.message)).toEqual(['clock is a date and time']);
  });
});
