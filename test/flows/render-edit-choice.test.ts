/**
 * `render: edit` after an `input: choice`: a choice takes typed answers as well as presses, and after a
 * typed answer there is no pressed message to edit, so `botflow check` warns as it does after a text input;
 * live, the step is sent as a new message below the person's answer (as docs/flows.md says).
 */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';

const flow = (pickRender = '') => `flow: clinic
start: pick
triggers:
  - bot_started: true
steps:
  pick:
    type: input
    say: "Pick a time"
    input: choice${pickRender}
    options: [{ id: "14", text: "14:00" }, { id: "15", text: "15:00" }]
    retries: { max: 2, exhausted: { goto: bye } }
    save: time
    next: confirm
  confirm:
    type: menu
    render: edit
    say: "Book {{time}}?"
    keyboard:
      - - { id: yes, text: "Yes, book it", goto: done }
        - { id: change, text: "Change", goto: pick }
  done:
    type: end
    say: "Booked {{time}}"
  bye:
    type: end
`;

const compile = (source: string) =>
  compileSources([{ file: 'clinic.flow.yaml', source }], EMPTY_REGISTRY, new Map());

describe('render: edit after a choice', () => {
  it('botflow check warns at the step, and says what to do', () => {
    expect(compile(flow()).problems.map((p) => formatProblem(p))).toEqual([
      'clinic.flow.yaml:16:13: warning: step "confirm" follows input "pick", which also takes typed answers: after a typed answer render: edit sends "confirm" as a new message, and the message with the choices stays above it, its buttons still there\n' +
        '    hint: give "pick" render: edit too (going back to it then redraws this message, instead of leaving it above with its buttons), or drop render: edit here',
    ]);
    const both = compile(flow('\n    render: edit')).problems;
    expect(both.map((p) => p.hint)).toEqual([
      'drop render: edit here, or keep it knowing that a typed answer gets a new message',
    ]);
  });

  it('live: after a typed answer the step is a new message; with the choice drawn by edit too, going back redraws it', async () => {
    const { flows } = compile(flow('\n    render: edit'));
    const transcript = `flow: clinic
name: typed, changed, pressed
turns:
  - start: true
    bot: { send: "Pick a time" }
  - say: "14:00"
    bot: { send: { text: "Book 14?", keyboard: [["Yes, book it", "Change"]] } }
  - press: Change
    bot: [{ answer: silent }, { edit: { text: "Pick a time", keyboard: [["14:00"], ["15:00"]] } }]
  - press: "15:00"
    bot: [{ answer: silent }, { edit: { text: "Book 15?", keyboard: [["Yes, book it", "Change"]] } }]
  - press: "Yes, book it"
    bot: [{ answer: silent }, { send: "Booked 15" }]
`;
    const parsed = parseTranscripts(transcript, 'clinic.test.yaml');
    expect(parsed.problems).toEqual([]);
    const result = await runTranscript(parsed.transcripts[0]!, { flows });
    expect(result.failure?.report ?? 'passed').toBe('passed');
  }, 30_000);
});
