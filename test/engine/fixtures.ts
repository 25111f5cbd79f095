// Flows and update builders shared by the engine tests: a hand-written signup wizard (name → plan
// buttons → confirm) with a reminder timer, a flow that repeats everything it heard, and raw updates
// shaped like the platform's.
import { assign, setup } from 'xstate';
import type { FlowEvent, FlowInput } from '../../src/engine/step/contract.ts';
import { armTimer, button, cancelTimer, defineFlow, edit, say } from '../../src/engine/step/helpers.ts';

export interface SignupContext {
  name?: string;
  plan?: string;
  reminders: number;
  payload?: string;
}

/** bot_started → ask_name (reminder after 1 h) → ask_plan (buttons) → confirm → done. */
export const signupMachine = setup({
  types: { context: {} as SignupContext, events: {} as FlowEvent, input: {} as FlowInput },
  guards: {
    hasText: ({ event }) => event.type === 'message' && !!event.text?.trim(),
    explode: ({ event }) => {
      if (event.type === 'message' && event.text === 'explode')
        throw new Error('the flow blew up on purpose');
      return false;
    },
  },
}).createMachine({
  id: 'signup',
  context: ({ input }) => ({
    reminders: 0,
    ...(input.trigger.kind === 'bot_started' && input.trigger.payload
      ? { payload: input.trigger.payload }
      : {}),
  }),
  initial: 'ask_name',
  states: {
    ask_name: {
      entry: [say('What is your name?'), armTimer('remind', 3_600_000)],
      on: {
        message: [
          { guard: 'explode', target: 'ask_name' },
          {
            guard: 'hasText',
            target: 'ask_plan',
            actions: [assign({ name: ({ event }) => (event.type === 'message' ? event.text : undefined) })],
          },
        ],
        timer: {
          actions: [
            assign({ reminders: ({ context }) => context.reminders + 1 }),
            say<SignupContext>(({ context }) => `Still there? (reminder ${context.reminders})`),
          ],
        },
      },
    },
    ask_plan: {
      entry: say<SignupContext>(({ context }) => `Hello ${context.name}! Pick a plan:`, {
        keyboard: [
          [button('plan', 'Basic', 'basic'), button('plan', 'Pro', 'pro')],
          [button('back', 'Back')],
        ],
      }),
      on: {
        button: [
          { guard: ({ event }) => event.type === 'button' && event.button === 'back', target: 'ask_name' },
          {
            target: 'confirm',
            actions: [
              assign({ plan: ({ event }) => (event.type === 'button' ? event.value : undefined) }),
              edit<SignupContext>(({ context }) => `Plan: ${context.plan}`),
            ],
          },
        ],
        redraw: { actions: say('Pick a plan again:', { keyboard: [[button('plan', 'Basic', 'basic')]] }) },
      },
    },
    confirm: {
      entry: [
        say<SignupContext>(({ context }) => `${context.name} on ${context.plan}. Type yes to finish.`),
        cancelTimer('remind'),
      ],
      on: { message: { target: 'done', actions: say('Welcome aboard!') } },
    },
    done: { type: 'final' },
  },
});

export const signupFlow = defineFlow({
  id: 'signup',
  machine: signupMachine,
  triggers: [{ kind: 'bot_started' }, { kind: 'command', name: 'start' }],
  stale: { kind: 'notify', text: 'That menu is old.' },
});

let seq = 0;
const mid = () => `mid.${(++seq).toString(16).padStart(32, '0')}`;
const user = (userId: number) => ({
  user_id: userId,
  first_name: `User ${userId}`,
  is_bot: false,
  last_activity_time: 0,
});

/** A person pressed Start in their dialog with the bot. */
export function botStarted(userId: number, timestamp: number, payload?: string) {
  return {
    update_type: 'bot_started',
    timestamp,
    chat_id: 1000 + userId,
    user: user(userId),
    ...(payload !== undefined ? { payload } : {}),
    user_locale: 'en',
  };
}

/** A text message in the person's dialog with the bot. */
export function textMessage(userId: number, timestamp: number, text: string) {
  return {
    update_type: 'message_created',
    timestamp,
    message: {
      sender: user(userId),
      recipient: { chat_id: 1000 + userId, chat_type: 'dialog' },
      timestamp,
      body: { mid: mid(), seq: seq, text },
    },
    user_locale: 'en',
  };
}

/** A press of a callback button with `payload` on the bot message `messageId`. */
export function press(userId: number, timestamp: number, payload: string, messageId = 'mid.bot') {
  return {
    update_type: 'message_callback',
    timestamp,
    callback: { timestamp, callback_id: `cb-${++seq}`, payload, user: user(userId) },
    message: {
      sender: { user_id: 1, first_name: 'Bot', is_bot: true, last_activity_time: 0 },
      recipient: { chat_id: 1000 + userId, chat_type: 'dialog' },
      timestamp,
      body: { mid: messageId, seq: seq, text: 'menu' },
    },
    user_locale: 'en',
  };
}

/** The person stopped the bot. */
export function botStopped(userId: number, timestamp: number) {
  return {
    update_type: 'bot_stopped',
    timestamp,
    chat_id: 1000 + userId,
    user: user(userId),
    user_locale: 'en',
  };
}

/** Collects every text it hears, replying with the running list: shows the order events were handled in. */
export const collectFlow = defineFlow({
  id: 'collect',
  triggers: [{ kind: 'command', name: 'collect' }],
  machine: setup({
    types: { context: {} as { heard: string[] }, events: {} as FlowEvent, input: {} as FlowInput },
  }).createMachine({
    context: { heard: [] },
    on: {
      message: {
        actions: [
          assign({
            heard: ({ context, event }) => [
              ...context.heard,
              event.type === 'message' ? (event.text ?? '') : '',
            ],
          }),
          say<{ heard: string[] }>(({ context }) => context.heard.join(',')),
        ],
      },
    },
  }),
});
