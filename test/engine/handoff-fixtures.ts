// The support flow and the operators' chat updates of the handoff tests (test/engine/handoff.test.ts).
import { expect } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';

export const OPS = -500;

export const SUPPORT = `flow: support
start: ask
triggers: [{ bot_started: true }]
handoff: { operators_chat: ${OPS}, hours: { tz: UTC, mon-fri: "09:00-18:00" } }
steps:
  ask:
    type: input
    say: Your question?
    input: text
    retries: { max: 3, exhausted: { goto: gone } }
    save: question
    next: human
  human:
    type: handoff
    reason: "{{question}}"
    summary: "Asked: {{question}}"
    return_to: after
    timeout: { after: 10m, say: "Nobody is free now, sorry.", goto: gone }
    out_of_hours: { say: We are closed., goto: closed }
  after: { type: end, say: "Back with the bot. Ticket {{ticket}}." }
  gone: { type: end, say: Bye. }
  closed: { type: end, say: Closed. }
`;

export function supportFlows() {
  const compiled = compileSources(
    [{ file: 'support.flow.yaml', source: SUPPORT }],
    defineRegistry({}),
    new Map(),
  );
  expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return compiled.flows;
}

let seq = 0;
const operator = (id: number) => ({
  user_id: id,
  first_name: `Op${id}`,
  name: `Op${id}`,
  is_bot: false,
  last_activity_time: 0,
});
const inOps = { chat_id: OPS, chat_type: 'chat' };

/** An operator pressed a button of the bot's message `mid` in the operators' chat. */
export function opPress(id: number, at: number, payload: string, mid: string) {
  return {
    update_type: 'message_callback',
    timestamp: at,
    callback: { timestamp: at, callback_id: `cb-op-${++seq}`, payload, user: operator(id) },
    message: {
      sender: { user_id: 1, first_name: 'Bot', is_bot: true, last_activity_time: 0 },
      recipient: inOps,
      timestamp: at,
      body: { mid, seq, text: 'request' },
    },
  };
}

/** An operator replied to the bot's message `replied` (its body as sent) in the operators' chat. */
export function opReply(
  id: number,
  at: number,
  replied: Record<string, unknown>,
  body: Record<string, unknown>,
) {
  return {
    update_type: 'message_created',
    timestamp: at,
    message: {
      sender: operator(id),
      recipient: inOps,
      timestamp: at,
      link: { type: 'reply', message: { mid: 'mid.relayed', seq: 1, ...replied } },
      body: { mid: `mid.op.${++seq}`, seq, ...body },
    },
  };
}

export const photo = (token: string) => ({
  type: 'image',
  payload: { photo_id: 1, token, url: `https://cdn.example/${token}` },
});
