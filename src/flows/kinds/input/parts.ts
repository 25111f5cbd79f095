/**
 * The named actions and guards of `input` steps: an answer taken (saved) or refused (counted, the error
 * said, the `exhausted` route after the last attempt), a multi_choice option toggled, a page of an
 * `options_from` list turned, an empty list. Built once per compiled flow (kinds/contract.ts, `parts`).
 */
import type { FlowEvent } from '../../../engine/step/contract.ts';
import { evaluateCondition } from '../../conditions.ts';
import { isAnswerEvent, pageOf, pressedId, type SayText, toggledOption } from '../../inputs.ts';
import { type Args, type FlowContext, flowAction, nowOf, type StepParams } from '../../machine-context.ts';
import type { KindParts, RunKit } from '../contract.ts';
import { answerReader, clarifyButtons } from './answers.ts';
import type { InputStep } from './schema.ts';

type P = StepParams;
type G = { context: FlowContext; event: FlowEvent };

/** An input step's parts over the flow's shared helpers. */
export function inputParts(k: RunKit): KindParts {
  const answerFor = answerReader(k);
  const at = (key: string) => {
    const e = k.entry(key);
    return { e, s: e.step as InputStep };
  };
  return { actions: inputActions(k, answerFor, at), guards: inputGuards(k, answerFor, at) };
}

type Reader = ReturnType<typeof answerReader>;
type At = (key: string) => { e: ReturnType<RunKit['entry']>; s: InputStep };

/** The answer taken or refused, an option toggled, a page turned. */
function inputActions(k: RunKit, answerFor: Reader, at: At) {
  const { usesEdit, typed, arm, effect, doneText, send, say, runRoute, render, keyboardOf } = k;
  return {
    accept: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const { e, s } = at(p.step);
      const r = answerFor(e, s, event, context);
      if (r.ok && s.save) enqueue.assign({ vars: { ...context.vars, [s.save]: r.value }, retries: 0 });
      // After a typed answer, the next step is a new message below it: `render: edit` only replaces a
      // message whose button was pressed.
      if (event.type === 'button' && event.message?.body.mid && usesEdit)
        enqueue.assign({ mid: event.message.body.mid });
      else if (event.type !== 'button') enqueue.assign({ mid: undefined });
    }),
    reject: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const { e, s } = at(p.step);
      const r = answerFor(e, s, event, context);
      if (r.ok) return;
      // An answer that fits several options is asked about, not refused: no retry is counted.
      if (r.clarify) {
        if (event.type !== 'button') enqueue.assign({ mid: undefined });
        typed.clarify(enqueue, e, context, clarifyButtons(e, s, context, r.clarify, say));
        arm(e, enqueue);
        return;
      }
      effect(enqueue, { kind: 'input.rejected' });
      // Typed text that picked none of a choice step's options: the funnel counts it with a sample.
      if (event.type === 'message' && event.text?.trim() && (s.options || s.options_from))
        effect(enqueue, { kind: 'input.unrecognised', text: event.text });
      enqueue.assign({
        retries: context.retries + 1,
        ...(event.type !== 'button' ? { mid: undefined } : {}),
      });
      const error: SayText =
        'builtin' in r.error && r.error.builtin === 'error-multi_choice'
          ? { builtin: 'error-multi_choice', args: { done: doneText(e, context) } }
          : r.error;
      send(enqueue, e, say(e, context, error));
      if (p.last) runRoute(e, context, s.retries.exhausted, enqueue, nowOf(event));
      else arm(e, enqueue);
    }),
    toggle: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const { e, s } = at(p.step);
      const id = toggledOption(s, event);
      if (id === undefined) return;
      const was = context.picked ?? [];
      const picked = was.includes(id) ? was.filter((x) => x !== id) : [...was, id];
      const mid = event.type === 'button' ? event.message?.body.mid : undefined;
      enqueue.assign({ picked });
      const c = { ...context, picked };
      const keyboard = keyboardOf(e, c);
      const text = s.say ? say(e, c, s.say) : undefined;
      // Redraw the pressed message in place: the marks show what is picked.
      if (mid)
        effect(enqueue, {
          kind: 'api',
          op: 'editMessage',
          args: { message_id: mid, text, attachments: keyboard ? [keyboard] : [], format: e.format },
        });
    }),
    // A press on ‹ or › of an `options_from` keyboard: the same message shows another page of choices.
    turnPage: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const page = event.type === 'button' ? pageOf(pressedId(event)) : undefined;
      if (page === undefined) return;
      enqueue.assign({ page });
      const mid = event.type === 'button' ? event.message?.body.mid : undefined;
      render(
        k.entry(p.step),
        { ...context, page, ...(mid ? { mid } : {}) },
        enqueue,
        false,
        mid !== undefined,
      );
    }),
  };
}

/** Which transition an answer takes: a `next` entry, the last attempt, a refusal; a toggle, a page, none. */
function inputGuards(k: RunKit, answerFor: Reader, at: At) {
  const { isLocal, nextCondition, localeOf, registry } = k;
  return {
    answer: ({ context, event }: G, p: P) => {
      const { e, s } = at(p.step);
      if (!isLocal(event) || !isAnswerEvent(s, event)) return false;
      if (p.back === true && context.back === undefined) return false;
      const r = answerFor(e, s, event, context);
      if (!r.ok) return false;
      const when = p.index === undefined ? undefined : nextCondition(e, p.index ?? 0);
      if (!when) return true;
      const vars = s.save ? { ...context.vars, [s.save]: r.value } : context.vars;
      return evaluateCondition(when, vars, localeOf(e, context), registry, nowOf(event));
    },
    exhausted: ({ context, event }: G, p: P) => {
      const { e, s } = at(p.step);
      if (!isLocal(event) || !isAnswerEvent(s, event)) return false;
      if (context.retries + 1 < s.retries.max) return false;
      // A clarifying question is no wrong answer: it never uses up the last attempt.
      const r = answerFor(e, s, event, context);
      return !(!r.ok && r.clarify);
    },
    answerEvent: ({ event }: G, p: P) => isLocal(event) && isAnswerEvent(at(p.step).s, event),
    toggle: ({ event }: G, p: P) => toggledOption(at(p.step).s, event) !== undefined,
    pageTurn: ({ event }: G) => event.type === 'button' && pageOf(pressedId(event)) !== undefined,
    noChoices: ({ context }: G) => context.choices?.length === 0,
  };
}
