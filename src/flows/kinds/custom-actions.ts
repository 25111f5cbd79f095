/**
 * The named guards and actions that run a project's kind of step (custom-adapter.ts builds its state from
 * them): its view drawn on entry and again, its handlers' answer to a message, a press, an event or its
 * timeout (read once per event: several guards and then an action read it), the way out taken with its
 * variables and text, a refusal. The handlers are pure; everything here becomes effects and assignments.
 */
import type { Effect, FlowEvent } from '../../engine/step/contract.ts';
import { durationMs } from '../../engine/step/durations.ts';
import {
  type Args,
  type Enqueue,
  type FlowContext,
  flowAction,
  nowOf,
  type StepEntry,
  type StepParams,
} from '../machine-context.ts';
import { RENDER_REF } from '../render.ts';
import type { KindAnswer, KindScope, StepKindSpec } from './custom.ts';
import { attachedKind } from './custom-attach.ts';

/** What the kinds' actions use of the compiled flow's helpers (action-kit.ts). */
export interface KindKit {
  entry(key: string): StepEntry;
  localeOf(e: StepEntry, c: FlowContext): string;
  say(e: StepEntry, c: FlowContext, text: string): string;
  effect(enqueue: Enqueue, params: Effect): void;
  send(enqueue: Enqueue, e: StepEntry, text: string): void;
  usesEdit: boolean;
}

type P = StepParams & { exit?: string };

/** The timer of a step's `timeout:` (a kind with `onTimeout`). */
export const kindTimer = (key: string) => `${key}:timeout`;

function specOf(e: StepEntry): StepKindSpec {
  const kind = attachedKind<{ spec: StepKindSpec }>(e.step);
  if (!kind) throw new Error(`step "${e.key}" is not of a project's kind`);
  return kind.spec;
}

/** The kind's handler for `event`, called with the step's fields. */
function handle(spec: StepKindSpec, e: StepEntry, event: FlowEvent, scope: KindScope): KindAnswer {
  const step = e.step as never;
  switch (event.type) {
    case 'message':
      return event.text === undefined ? undefined : spec.onMessage?.(step, event.text, scope);
    case 'button':
      return spec.onPress?.(step, event.button, scope);
    case 'event':
      return spec.onEvent?.(step, { name: event.name, payload: event.payload }, scope);
    case 'timer':
      return event.name === kindTimer(e.key) ? spec.onTimeout?.(step, scope) : undefined;
    default:
      return undefined;
  }
}

/** The guards and actions of the project's kinds in one compiled flow. */
export function kindParts(k: KindKit) {
  const { entry, localeOf, say, effect, send, usesEdit } = k;
  const scopeOf = (e: StepEntry, c: FlowContext, event: unknown): KindScope => ({
    vars: c.vars,
    locale: localeOf(e, c),
    now: nowOf(event),
    text: (t) => say(e, c, t),
  });
  const answers = new WeakMap<object, Map<string, KindAnswer>>();
  /** The step's answer to the event, read once per event and step. */
  const answerOf = (e: StepEntry, c: FlowContext, event: FlowEvent): KindAnswer => {
    let byStep = answers.get(event);
    if (!byStep) {
      byStep = new Map();
      answers.set(event, byStep);
    }
    if (byStep.has(e.key)) return byStep.get(e.key);
    const spec = specOf(e);
    const answer = handle(spec, e, event, scopeOf(e, c, event));
    if (answer && 'goto' in answer && !Object.hasOwn(spec.exits, answer.goto))
      throw new Error(
        `the ${spec.type} kind answered goto "${answer.goto}", which is none of its exits (${Object.keys(spec.exits).join(', ')})`,
      );
    byStep.set(e.key, answer);
    return answer;
  };
  const draw = (e: StepEntry, c: FlowContext, event: unknown, enqueue: Enqueue) => {
    const view = specOf(e).show(e.step as never, scopeOf(e, c, event));
    const rows = (view.buttons ?? []).map((row) =>
      row.map((b) => ({ type: 'callback', text: b.text, payload: b.id })),
    );
    const attachments = rows.length ? [{ type: 'inline_keyboard', payload: { buttons: rows } }] : [];
    if (!view.text && !attachments.length) return;
    effect(enqueue, {
      kind: 'api',
      op: 'sendMessage',
      args: { text: view.text, attachments: attachments as never, format: e.format },
      ...(usesEdit ? { ref: RENDER_REF } : {}),
    });
  };
  const timed = (e: StepEntry) => (e.step as { timeout?: string }).timeout;
  return {
    guards: {
      kindGoes: ({ context, event }: { context: FlowContext; event: FlowEvent }, p: P) => {
        const a = answerOf(entry(p.step), context, event);
        return !!a && 'goto' in a && a.goto === p.exit;
      },
      kindRefuses: ({ context, event }: { context: FlowContext; event: FlowEvent }, p: P) => {
        const a = answerOf(entry(p.step), context, event);
        return !!a && 'refuse' in a;
      },
    },
    actions: {
      kindShow: flowAction(({ context, event, enqueue }: Args, p: P) => {
        draw(entry(p.step), context, event, enqueue);
      }),
      kindGo: flowAction(({ context, event, enqueue }: Args, p: P) => {
        const e = entry(p.step);
        const a = answerOf(e, context, event);
        if (!a || !('goto' in a)) return;
        const vars = a.set ? { ...context.vars, ...a.set } : context.vars;
        if (a.set) enqueue.assign({ vars });
        if (event.type !== 'button' && context.mid) enqueue.assign({ mid: undefined });
        if (a.say) send(enqueue, e, a.say);
      }),
      kindRefuse: flowAction(({ context, event, enqueue }: Args, p: P) => {
        const a = answerOf(entry(p.step), context, event);
        if (!a || !('refuse' in a)) return;
        effect(enqueue, { kind: 'input.rejected' });
        if (event.type === 'message' && event.text?.trim())
          effect(enqueue, { kind: 'input.unrecognised', text: event.text });
        send(enqueue, entry(p.step), a.refuse);
      }),
      kindArm: flowAction(({ enqueue }: Args, p: P) => {
        const after = timed(entry(p.step));
        if (after)
          effect(enqueue, { kind: 'timer.arm', name: kindTimer(p.step), delayMs: durationMs(after) });
      }),
      kindDisarm: flowAction(({ enqueue }: Args, p: P) => {
        effect(enqueue, { kind: 'timer.cancel', name: kindTimer(p.step) });
      }),
    },
  };
}
