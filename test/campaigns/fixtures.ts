// Flows the campaign tests run: a welcome flow people start the bot with (it saves a variable and tags
// them), and the offer a campaign starts (it asks one question, then finishes).

import { readFileSync } from 'node:fs';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileFlow } from '../../src/flows/load.ts';

export const WELCOME = `
flow: welcome
start: hello
triggers:
  - bot_started: true
steps:
  hello:
    type: message
    say: "Hello {{start_payload}}"
    set: { plan: "= start_payload" }
    tag: member
    next: pick
  pick:
    type: input
    say: "Which plan?"
    input: text
    save: plan
    retries: { max: 3, exhausted: { goto: done } }
    next: done
  done:
    type: end
    say: "Thanks"
    tag: [signed_up]
    untag: member
`;

export const OFFER = `
flow: offer
start: ask
steps:
  ask:
    type: input
    say: "Spring offer {{code}}: interested?"
    input: text
    save: answer
    retries: { max: 3, exhausted: { goto: thanks } }
    next: thanks
  thanks:
    type: end
    say: "Noted"
    do: [{ tag: offer_answered }]
`;

/** The compiled flows (their problems fail the test). */
export function flows(): FlowDefinition[] {
  return [
    [WELCOME, 'welcome'],
    [OFFER, 'offer'],
  ].map(([source, id]) => {
    const { flow, problems } = compileFlow(source!, `${id}.flow.yaml`);
    if (!flow) throw new Error(problems.map((p) => p.message).join('\n'));
    return flow;
  });
}

/** The spring_offer flow the campaigns page's samples start. */
export const SPRING_OFFER = `flow: spring_offer
start: offer
steps:
  offer:
    type: end
    say: "Spring offer {{code}}"
`;

/** The YAML samples of docs/campaigns.md, in order. */
export const campaignsPageYaml = (): string[] =>
  [
    ...readFileSync(new URL('../../docs/campaigns.md', import.meta.url), 'utf8').matchAll(
      /```yaml\n([\s\S]*?)```/g,
    ),
  ].map((m) => m[1]!);
