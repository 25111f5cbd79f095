/** The `handoff` step's fields: a request to the operators, its texts, and the ways back. */
import { z } from 'zod';
import { Duration, Id, Text } from '../../schema-parts.ts';

/** A person takes over: the conversation waits here for an operator, and returns at `return_to`. */
export const HandoffStep = z
  .strictObject({
    type: z.literal('handoff'),
    reason: Text.optional().describe("Why the person asked for someone: shown in the operators' request"),
    summary: Text.optional().describe('The conversation so far for the operator: "{{name}} wants {{topic}}"'),
    say: Text.optional().describe(
      'Said to the person while they wait ({{handoff_wait}}: the expected wait; {{handoff_place}}: their place in the queue)',
    ),
    joined: Text.optional().describe('Said when an operator takes it ({{handoff_operator}}: their name)'),
    return_to: Id.describe("The step the flow continues at after the operator's /done"),
    timeout: z
      .strictObject({ after: Duration.optional(), say: Text.optional(), goto: Id })
      .optional()
      .describe('When nobody takes it in time (default wait: the flow settings, else 15m)'),
    out_of_hours: z
      .strictObject({ say: Text.optional(), goto: Id })
      .optional()
      .describe('Outside the opening hours: where to go instead (default: the request is made anyway)'),
  })
  .describe('Hands the conversation to an operator in the operators chat; /done returns to return_to');
export type HandoffStep = z.infer<typeof HandoffStep>;
