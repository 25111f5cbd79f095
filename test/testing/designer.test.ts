/** Transcripts and coverage for designers (issue 17): branch steps count, the virtual clock is settable. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { coverageReport } from '../../src/testing/coverage.ts';
import { CoverageRecorder } from '../../src/testing/coverage-recorder.ts';
import { HARNESS_EPOCH } from '../../src/testing/harness.ts';
import { loadTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';

const registry = defineRegistry({
  validators: {
    not_past: (v, { now }) => String(v) >= new Date(now).toISOString().slice(0, 10) || 'In the past',
  },
});
const flows = compileSources(
  [
    {
      file: 'book.flow.yaml',
      source: `flow: book
start: day
triggers: [{ bot_started: true }]
steps:
  day:
    type: input
    say: Which day?
    input: date
    validate: [{ rule: not_past }]
    retries: { max: 3, exhausted: { goto: bye } }
    save: day
    next: check
  check:
    type: branch
    cases: [{ when: { var: day, lt: +7d }, goto: soon }]
    else: later
  soon: { type: end, say: "Soon: {{day}}" }
  later: { type: end, say: "Later: {{day}}" }
  bye: { type: end, say: Bye }
`,
    },
  ],
  registry,
  new Map(),
).flows;

function transcripts(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-designer-'));
  writeFileSync(join(dir, 'book.test.yaml'), text);
  const r = loadTranscripts([dir]);
  expect(r.problems).toEqual([]);
  return r.transcripts;
}

describe('transcripts for designers', () => {
  it('6. a transcript sets where the virtual clock starts; validators and conditions see that time', async () => {
    const [t] = transcripts(`flow: book
name: clock set
clock: 2026-03-15T12:00:00Z
turns:
  - start: true
    bot: { send: Which day? }
  - say: 2026-03-14
    bot: { send: In the past }
  - say: tomorrow
    bot: { send: "Soon: 2026-03-16" }
`);
    expect(t!.clock).toBe(Date.UTC(2026, 2, 15, 12));
    const r = await runTranscript(t!, { flows });
    expect(r.failure?.report).toBeUndefined();
    // Without clock: the documented start, 2026-01-05T09:00:00Z.
    expect(HARNESS_EPOCH).toBe(Date.parse('2026-01-05T09:00:00Z'));
  }, 60_000);

  it('7. coverage counts branch steps and the transitions through them', async () => {
    const ts = transcripts(`flow: book
name: soon
clock: 2026-03-15
turns:
  - start: true
    bot: { send: Which day? }
  - say: tomorrow
    bot: { send: "Soon: 2026-03-16" }
---
flow: book
name: later
clock: 2026-03-15
turns:
  - start: true
    bot: { send: Which day? }
  - say: +30d
    bot: { send: "Later: 2026-04-14" }
`);
    const recorder = new CoverageRecorder();
    for (const t of ts)
      expect((await runTranscript(t, { flows, coverage: recorder })).failure).toBeUndefined();
    const [c] = coverageReport(flows, recorder);
    expect(c!.missedSteps).toEqual(['bye']);
    expect(c!.missedEdges.map((e) => `${e.from}>${e.to}`)).not.toContain('check>soon');
    expect(c!.missedEdges.map((e) => `${e.from}>${e.label}>${e.to}`)).toEqual([
      'day>retries exhausted>bye',
      'day>invalid answer>undefined',
    ]);
  }, 60_000);
});

describe('new inputs through the engine and the sandbox', () => {
  const booking = compileSources(
    [
      {
        file: 'slots.flow.yaml',
        source: `flow: slots
start: slot
triggers: [{ bot_started: true }]
commands: { cancel: { goto: bye } }
steps:
  slot:
    type: input
    say: Which time?
    input: choice
    options: [{ id: "18:00", text: "18:00" }, { id: "20:30", text: "20:30" }]
    retries: { max: 3, exhausted: { goto: bye } }
    save: slot
    next: extras
  extras:
    type: input
    say: Extras?
    input: multi_choice
    options: [{ id: wifi, text: Wi-Fi }, { id: parking, text: Parking }]
    retries: { max: 3, exhausted: { goto: bye } }
    save: extras
    next: done
  done: { type: end, say: "{{slot}} with {{extras}}" }
  bye: { type: end, say: Bye }
`,
      },
    ],
    registry,
    new Map(),
  ).flows;

  it('a choice id with ":" and a multi-select round-trip through signed buttons; /support is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-slots-'));
    writeFileSync(
      join(dir, 'slots.test.yaml'),
      `flow: slots
name: slot and extras
turns:
  - start: true
    bot: { send: { text: Which time?, keyboard: [["18:00"], ["20:30"]] } }
  - say: /support
    bot: { send: "You are in the middle of “slots”. Answer the question above, or send /cancel to leave it." }
  - press: "18:00"
    bot: [{ answer: true }, { send: { text: Extras?, keyboard: [[Wi-Fi], [Parking], [Done]] } }]
  - press: Parking
    bot: [{ answer: true }, { edit: { text: Extras?, keyboard: [[Wi-Fi], ["✓ Parking"], [Done]] } }]
  - press: Wi-Fi
    bot: [{ answer: true }, { edit: { keyboard: [["✓ Wi-Fi"], ["✓ Parking"], [Done]] } }]
  - press: Done
    bot: [{ answer: true }, { send: "18:00 with wifi, parking" }]
`,
    );
    const { transcripts: ts, problems } = loadTranscripts([dir]);
    expect(problems).toEqual([]);
    const r = await runTranscript(ts[0]!, { flows: booking });
    expect(r.failure?.report).toBeUndefined();
  }, 60_000);
});
