/**
 * The run-time parts of the designer patterns: `come_back` and the refusal of other flows' commands (a
 * sub-flow's parameters and return values and multi-select toggles are their kinds': kinds/call/run.ts,
 * kinds/end/index.ts, kinds/input/parts.ts). Kept beside actions.ts, which hands in the helpers it shares.
 */
import { assign } from 'xstate';
import type { FlowEvent } from '../engine/step/contract.ts';
import type { SayText } from './inputs.ts';
import {
  type Args,
  COMMANDS_ENTRY,
  type Enqueue,
  type FlowContext,
  flowAction,
  type StepEntry,
} from './machine-context.ts';
import type { FlowFile } from './schema.ts';

export { COMMANDS_ENTRY } from './machine-context.ts';

/** What actions.ts shares with these parts. */
export interface DesignerKit {
  entry(key: string): StepEntry;
  say(e: StepEntry, c: FlowContext, text: SayText | string): string;
  send(enqueue: Enqueue, e: StepEntry, text: string): void;
  root: FlowFile;
  globals: Set<string>;
}

/** The named actions and guards of the designer patterns. */
export function designerParts(k: DesignerKit) {
  const actions = {
    comeBack: assign({ back: undefined, editing: undefined }),
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
    foreignCommand: ({ event }: { event: FlowEvent }) =>
      event.type === 'command' && !k.globals.has(event.name),
    comingBack: ({ context }: { context: FlowContext }) => context.back !== undefined,
    backTo: ({ context }: { context: FlowContext }, p: { step: string }) => context.back === p.step,
  };
  return { actions, guards };
}
