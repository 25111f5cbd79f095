/**
 * `start_at` enters its step as the playground's "Start here" does: the person sees the step's message
 * with its buttons and its reminders are armed, so a flow that only a campaign starts can be tested from
 * its first message (the entry is not a call of the first turn). A chat saved from the playground after
 * a jump replays the same way.
 */
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileFlow, loadFlows } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { transcriptFromChat } from '../../src/testing/from-chat.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';

// No trigger: only a campaign starts it (`flow: spring_offer` in a *.campaign.yaml), on its first step.
const SPRING_OFFER = `
flow: spring_offer
start: offer
steps:
  offer:
    type: menu
    say: "Spring offer {{code}}: a second pizza free. Interested?"
    keyboard:
      - - { id: take, text: "Yes please", goto: booked }
        - { id: skip, text: "No thanks", goto: declined }
    remind:
      - { after: 1h, say: "The spring offer ends tonight." }
  booked:
    type: end
    say: "Booked with {{code}}."
  declined:
    type: end
    say: "Noted: no more offers."
`;

function offerFlow(): FlowDefinition {
  const { flow, problems } = compileFlow(SPRING_OFFER, 'spring_offer.flow.yaml');
  if (!flow) throw new Error(problems.map(formatProblem).join('\n'));
  return flow;
}

const run = (yaml: string, flows: FlowDefinition[]) => {
  const parsed = parseTranscripts(yaml, 'spring.test.yaml');
  expect(parsed.problems.map(formatProblem)).toEqual([]);
  return runTranscript(parsed.transcripts[0]!, { flows });
};

describe('start_at', () => {
  it("presses the buttons of the step's message, as the campaign's person has them", async () => {
    const result = await run(
      `flow: spring_offer
name: the offer is taken
start_at: { step: offer, context: { code: SPRING26 } }
turns:
  - press: Yes please
    bot:
      - answer: silent
      - send: Booked with SPRING26.
`,
      [offerFlow()],
    );
    expect(result.failure?.report).toBeUndefined();
    expect(result.passed).toBe(true);
  });

  it("arms the step's reminders; its message keeps its buttons after them", async () => {
    const result = await run(
      `flow: spring_offer
name: the person waits, then says no
start_at: { step: offer, context: { code: SPRING26 } }
turns:
  - wait: 1h
    bot: { send: The spring offer ends tonight. }
  - press: { button: No thanks, on: first }
    bot: [{ answer: silent }, { send: "Noted: no more offers." }]
`,
      [offerFlow()],
    );
    expect(result.failure?.report).toBeUndefined();
    expect(result.passed).toBe(true);
  });

  it('a step inside a called flow is placed, not entered: a press there says what to do', async () => {
    const { flows } = await loadFlows('flows');
    const result = await run(
      `flow: signup
name: inside /help
start_at: { step: __call_help>explain, context: { name: Kim } }
turns:
  - press: ✅ Confirm
    bot: nothing
`,
      flows,
    );
    expect(result.failure?.report).toContain('buttons the person sees: none');
    expect(result.failure?.report).toContain(
      'start_at: __call_help>explain is inside a called flow: it is placed, not entered',
    );
  });

  it('a chat saved from the playground after a jump replays its presses', async () => {
    const { flows } = await loadFlows('flows');
    const yaml = await transcriptFromChat(
      {
        flow: 'signup',
        person: { name: 'Kim', locale: 'en' },
        startAt: { step: 'confirm', context: { name: 'Kim', age: 30, email: 'kim@example.org' } },
        actions: [{ kind: 'press', button: '✅ Confirm', on: 'latest' }],
        tasks: {},
      },
      flows,
      'Kim confirms',
    );
    expect(yaml).toContain('- press: ✅ Confirm');
    expect(yaml).toContain('Thanks, Kim! You are signed up.');
    const result = await run(yaml, flows);
    expect(result.failure?.report).toBeUndefined();
    expect(result.passed).toBe(true);
  });
});
