/**
 * A `menu` step's typed text read as a press on one of its buttons (by label, alias, position, yes/no or a
 * typo): its transitions before `on_text`, the guards that match the text once per event, and the
 * clarifying question when it fits several buttons.
 */
import type { FlowEvent } from '../../../engine/step/contract.ts';
import { platformButton } from '../../buttons.ts';
import {
  type Args,
  type FlowContext,
  flowAction,
  type StepEntry,
  type StepParams,
} from '../../machine-context.ts';
import { namedButtons } from '../../typed-answers.ts';
import { type MatchResult, matchPrepared } from '../../understand/match.ts';
import type { ClarifyButton, KindParts, RunKit } from '../contract.ts';
import type { Button } from '../fields.ts';
import type { MenuStep } from './schema.ts';

/**
 * A menu step's transitions for typed text, before its `on_text`: text naming one of its buttons takes
 * that button's route (as its press would); text that fits several asks which one (`clarifyMenu`).
 */
export function typedMenuTransitions(
  key: string,
  keyboard: readonly (readonly Button[])[],
  routeTransition: (key: string, route: string, b: Button) => Record<string, unknown>,
): Record<string, unknown>[] {
  const s = { step: key };
  return [
    ...namedButtons(keyboard).map((b) => ({
      guard: { type: 'typedButton', params: { ...s, id: b.id } },
      ...routeTransition(key, `button:${b.id}`, b),
    })),
    { guard: { type: 'typedUnclear', params: s }, actions: [{ type: 'clarifyMenu', params: s }] },
  ];
}

/** The close buttons of a clarifying question, as the menu draws them. */
function clarifyButtons(
  e: StepEntry,
  s: MenuStep,
  c: FlowContext,
  ids: readonly string[],
  say: RunKit['say'],
) {
  const buttons: ClarifyButton[] = [];
  for (const id of ids) {
    const b = namedButtons(s.keyboard).find((x) => x.id === id);
    const text = b ? say(e, c, b.text) : undefined;
    if (b && text) buttons.push({ text, button: platformButton(b, text) });
  }
  return buttons;
}

type G = { context: FlowContext; event: FlowEvent };

/** A menu's parts: typed text matched against its buttons once per event, and the clarifying question. */
export function menuParts(k: RunKit): KindParts {
  const { entry, typed, arm } = k;
  // Several guards read the same typed text at a menu during one transition: match it once.
  const answers = new WeakMap<object, Map<string, MatchResult>>();
  /** A menu step's typed text against its buttons' labels and aliases. */
  const answerFor = (e: StepEntry, event: FlowEvent, c: FlowContext): MatchResult => {
    if (event.type !== 'message' || !event.text?.trim()) return { kind: 'none' };
    let byStep = answers.get(event);
    if (!byStep) {
      byStep = new Map();
      answers.set(event, byStep);
    }
    let m = byStep.get(e.key);
    if (!m) {
      const s = e.step as MenuStep;
      m = matchPrepared(
        event.text,
        typed.declaredFor(e, c, () => namedButtons(s.keyboard)),
      );
      byStep.set(e.key, m);
    }
    return m;
  };
  return {
    actions: {
      // A menu's typed text that fits several of its buttons: which one was meant?
      clarifyMenu: flowAction(({ context, event, enqueue }: Args, p: StepParams) => {
        const e = entry(p.step);
        const m = answerFor(e, event, context);
        if (m.kind !== 'ambiguous') return;
        if (context.mid) enqueue.assign({ mid: undefined });
        typed.clarify(enqueue, e, context, clarifyButtons(e, e.step as MenuStep, context, m.ids, k.say));
        arm(e, enqueue);
      }),
    },
    guards: {
      // A menu's typed text names this button (by label, alias, position, yes/no or a typo).
      typedButton: ({ context, event }: G, p: StepParams & { id?: string }) => {
        const m = answerFor(entry(p.step), event, context);
        return m.kind === 'match' && m.id === p.id;
      },
      typedUnclear: ({ context, event }: G, p: StepParams) =>
        answerFor(entry(p.step), event, context).kind === 'ambiguous',
    },
  };
}
