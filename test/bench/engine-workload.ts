// The engine bench's workload, shared by engine.bench.ts, its PostgreSQL child and pg-profile.ts: a small
// menu ⇄ question flow, and the updates of people who start the bot and answer in turns.
import { assign, setup } from 'xstate';
import type { FlowEvent, FlowInput } from '../../src/engine/step/contract.ts';
import { armTimer, button, defineFlow, say } from '../../src/engine/step/helpers.ts';

interface Ctx {
  answers: number;
  last?: string;
}

/** A small menu ⇄ question loop: every update is one transition, one keyboard message and one timer. */
export const menuFlow = defineFlow({
  id: 'menu',
  triggers: [{ kind: 'bot_started' }],
  machine: setup({
    types: { context: {} as Ctx, events: {} as FlowEvent, input: {} as FlowInput },
  }).createMachine({
    context: { answers: 0 },
    initial: 'menu',
    states: {
      menu: {
        entry: say<Ctx>(({ context }) => `Main menu (${context.answers} answers so far)`, {
          keyboard: [[button('ask', 'Ask me'), button('stats', 'Stats')], [button('lang', 'Language', 'en')]],
        }),
        on: { message: 'ask', button: 'ask' },
      },
      ask: {
        entry: [say('What is on your mind?'), armTimer('idle', 15 * 60_000)],
        on: {
          message: {
            target: 'menu',
            actions: assign({
              answers: ({ context }) => context.answers + 1,
              last: ({ event }) => (event.type === 'message' ? event.text?.slice(0, 40) : undefined),
            }),
          },
        },
      },
    },
  }),
});

export const SECRET = 'bench-secret-for-button-signing';
const user = (id: number) => ({ user_id: id, first_name: `Имя ${id}`, is_bot: false, last_activity_time: 1 });
let mids = 0;

function botStarted(id: number, t: number): string {
  return JSON.stringify({
    update_type: 'bot_started',
    timestamp: t,
    chat_id: 500_000 + id,
    user: user(id),
    user_locale: 'ru',
  });
}

export function message(id: number, t: number, text: string): string {
  const mid = `mid.${(++mids).toString(16).padStart(32, '0')}`;
  return JSON.stringify({
    update_type: 'message_created',
    timestamp: t,
    message: {
      sender: user(id),
      recipient: { chat_id: 500_000 + id, chat_type: 'dialog' },
      timestamp: t,
      body: { mid, seq: mids, text },
    },
    user_locale: 'ru',
  });
}

/** The bench's updates: everyone starts the bot, then answers `rounds` times, in turns. */
export function workload(people: number, rounds: number): string[] {
  let t = Date.now();
  const payloads: string[] = [];
  for (let id = 1; id <= people; id++) payloads.push(botStarted(id, ++t));
  for (let r = 0; r < rounds; r++) {
    for (let id = 1; id <= people; id++) {
      const answer = r % 2 === 0 ? 'ещё вопрос' : `ответ ${'слово '.repeat((id * 7 + r) % 12)}`.trim();
      payloads.push(message(id, ++t, answer));
    }
  }
  return payloads;
}
