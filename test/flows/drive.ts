/** Drives a compiled flow with XState's pure functions: no engine, no I/O. */
import { initialTransition, transition } from 'xstate';
import {
  EFFECT_ACTION,
  type Effect,
  type FlowDefinition,
  type FlowEvent,
} from '../../src/engine/step/contract.ts';

const meta = (locale?: string) => ({
  conversation: 'c1',
  chatId: 1,
  userId: 7,
  now: 0,
  ...(locale ? { locale } : {}),
});

export type Snapshot = ReturnType<typeof initialTransition>[0];

/** A flow run: the current snapshot and the effects of the last event. */
export class Drive {
  snapshot: Snapshot;
  effects: Effect[];
  constructor(
    readonly def: FlowDefinition,
    opts: { locale?: string; payload?: string; snapshot?: Snapshot } = {},
  ) {
    if (opts.snapshot) {
      this.snapshot = opts.snapshot;
      this.effects = [];
      return;
    }
    const [s, actions] = initialTransition(def.machine, {
      trigger: { kind: 'bot_started', payload: opts.payload },
      meta: meta(opts.locale),
    });
    this.snapshot = s;
    this.effects = effectsOf(actions);
  }
  send(event: Omit<FlowEvent, 'meta'> & { meta?: FlowEvent['meta'] }): Effect[] {
    const [s, actions] = transition(this.def.machine, this.snapshot, { meta: meta(), ...event } as FlowEvent);
    this.snapshot = s;
    this.effects = effectsOf(actions);
    return this.effects;
  }
  text(text: string) {
    return this.send({
      type: 'message',
      text,
      attachments: [],
      message: { body: { mid: 'm', seq: 1, text } },
    } as never);
  }
  attach(attachment: Record<string, unknown>) {
    return this.send({
      type: 'message',
      attachments: [attachment],
      message: { body: { mid: 'm', seq: 1 } },
    } as never);
  }
  press(button: string, mid = 'mid.menu') {
    return this.send({
      type: 'button',
      button,
      callbackId: 'cb',
      message: { body: { mid, seq: 1 } },
    } as never);
  }
  command(name: string, args = '') {
    return this.send({ type: 'command', name, args, message: { body: { mid: 'm', seq: 1 } } } as never);
  }
  timer(name: string) {
    return this.send({ type: 'timer', name } as never);
  }
  get step(): unknown {
    return this.snapshot.value;
  }
  get vars(): Record<string, unknown> {
    return (this.snapshot.context as { vars: Record<string, unknown> }).vars;
  }
  /** Texts of the messages sent or edited by the last event. */
  get said(): string[] {
    return this.effects.flatMap((e) => {
      if (e.kind === 'api' && (e.op === 'sendMessage' || e.op === 'editMessage'))
        return [String(e.args.text ?? '')];
      if (e.kind === 'upload_and_send') return [String(e.message.text ?? '')];
      return [];
    });
  }
  /** Button rows of the last message with a keyboard: [[text, payload]]. */
  get keyboard(): [string, string | undefined][][] {
    for (const e of [...this.effects].reverse()) {
      if (e.kind !== 'api') continue;
      const atts = (e.args.attachments ?? []) as {
        type: string;
        payload: { buttons: { text: string; payload?: string }[][] };
      }[];
      const kb = atts.find((a) => a.type === 'inline_keyboard');
      if (kb) return kb.payload.buttons.map((row) => row.map((b) => [b.text, b.payload]));
    }
    return [];
  }
}

function effectsOf(actions: { type: string; params?: unknown }[]): Effect[] {
  return actions.filter((a) => a.type === EFFECT_ACTION).map((a) => a.params as Effect);
}
