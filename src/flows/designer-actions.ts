/**
 * The run-time parts of the designer patterns: sub-flow parameters and return values, `come_back`,
 * multi-select toggles and the refusal of other flows' commands.
 * Kept beside actions.ts, which hands in the helpers it shares.
 */
import { assign } from 'xstate';
import type { Effect, FlowEvent } from '../engine/step/contract.ts';
import { type SayText, toggledOption } from './inputs.ts';
import {
  type Args,
  type Enqueue,
  type FlowContext,
  flowAction,
  type StepEntry,
  type StepParams,
} from './machine-context.ts';
import type { FlowFile, Step } from './schema.ts';
import { readVar } from './vars.ts';

/** Step key of the flow-level entry that global commands run in (no step id starts with #). */
export const COMMANDS_ENTRY = '#commands';

/** What actions.ts shares with these parts. */
export interface DesignerKit {
  entry(key: string): StepEntry;
  say(e: StepEntry, c: FlowContext, text: SayText | string): string;
  keyboardOf(e: StepEntry, c: FlowContext): unknown;
  effect(enqueue: Enqueue, params: Effect): void;
  send(enqueue: Enqueue, e: StepEntry, text: string): void;
  root: FlowFile;
  globals: Set<string>;
}

/**
 * Entering a step: a call step's `with:` parameters are set (constants, or "{{var}}" copying a value,
 * not its text), and an end step's `return:` value is kept for the caller. Returns the context to use.
 */
export function enterCall(s: Step, context: FlowContext, enqueue: Enqueue): FlowContext {
  let c = context;
  if (s.type === 'call' && s.with) {
    const params = Object.fromEntries(
      Object.entries(s.with).map(([k, v]) => {
        const m = typeof v === 'string' ? /^\{\{\s*([\w.]+)\s*\}\}$/.exec(v) : null;
        return [k, m ? readVar(c.vars, m[1]!) : v];
      }),
    );
    c = { ...c, vars: { ...c.vars, ...params } };
    enqueue.assign({ vars: c.vars });
  }
  if (s.type === 'end' && s.return !== undefined) {
    const names = s.return;
    const ret = Array.isArray(names)
      ? Object.fromEntries(names.map((n) => [n, readVar(c.vars, n) ?? null]))
      : (readVar(c.vars, names) ?? null);
    enqueue.assign({ ret });
  }
  return c;
}

type P = StepParams;

/** The named actions and guards of the designer patterns. */
export function designerParts(k: DesignerKit) {
  const actions = {
    called: flowAction(({ context, enqueue }: Args, p: P) => {
      const s = k.entry(p.step).step;
      if (s.type === 'call' && s.save_as)
        enqueue.assign({ vars: { ...context.vars, [s.save_as]: context.ret ?? null }, ret: null });
    }),
    comeBack: assign({ back: undefined, editing: undefined }),
    toggle: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const e = k.entry(p.step);
      if (e.step.type !== 'input') return;
      const id = toggledOption(e.step, event);
      if (id === undefined) return;
      const was = context.picked ?? [];
      const picked = was.includes(id) ? was.filter((x) => x !== id) : [...was, id];
      const mid = event.type === 'button' ? event.message?.body.mid : undefined;
      enqueue.assign({ picked });
      const c = { ...context, picked };
      const keyboard = k.keyboardOf(e, c);
      const text = 'say' in e.step && e.step.say ? k.say(e, c, e.step.say) : undefined;
      // Redraw the pressed message in place: the marks show what is picked.
      if (mid)
        k.effect(enqueue, {
          kind: 'api',
          op: 'editMessage',
          args: { message_id: mid, text, attachments: keyboard ? [keyboard] : [], format: e.format },
        });
    }),
    refuseCommand: flowAction(({ context, enqueue }: Args) => {
      const e = k.entry(COMMANDS_ENTRY);
      // The commands that leave: those going to a step (a `call` comes back here).
      const leave = Object.entries(k.root.commands ?? {})
        .filter(([, r]) => r.goto && !r.come_back)
        .map(([n]) => `/${n}`);
      const flowName = k.root.title ?? k.root.flow;
      const text: SayText = leave.length
        ? { builtin: 'command-refused', args: { flow: flowName, leave: leave.join(', ') } }
        : { builtin: 'command-refused-stuck', args: { flow: flowName } };
      k.send(enqueue, e, k.say(e, context, text));
    }),
  };
  const guards = {
    toggle: ({ event }: { event: FlowEvent }, p: P) => {
      const s = k.entry(p.step).step;
      return s.type === 'input' && toggledOption(s, event) !== undefined;
    },
    foreignCommand: ({ event }: { event: FlowEvent }) =>
      event.type === 'command' && !k.globals.has(event.name),
    comingBack: ({ context }: { context: FlowContext }) => context.back !== undefined,
    backTo: ({ context }: { context: FlowContext }, p: { step: string }) => context.back === p.step,
  };
  return { actions, guards };
}
