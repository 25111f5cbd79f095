/**
 * An `input` step's answer to an event, read once per event (several guards and then an action read the
 * same answer during one transition): against its declared options or its list's choices as typed answers
 * keep them (typed-answers.ts), in the person's time zone; and the close options of a clarifying question.
 */
import type { FlowEvent } from '../../../engine/step/contract.ts';
import { isTimeZone } from '../../../engine/step/wall-clock.ts';
import { type CandidatesFrom, choiceId, choiceIndexOf, type InputResult, readAnswer } from '../../inputs.ts';
import { type FlowContext, nowOf, type StepEntry } from '../../machine-context.ts';
import { fillTemplate } from '../../texts.ts';
import type { ClarifyButton, RunKit } from '../contract.ts';
import type { InputStep } from './schema.ts';

/** The step's `time_zone:` ("{{tz}}" filled in), else the variable `time_zone`, else UTC. */
function timeZoneOf(s: InputStep, c: FlowContext): string {
  const declared = s.time_zone ? fillTemplate(s.time_zone, c.vars).trim() : undefined;
  const zone = declared || (typeof c.vars.time_zone === 'string' ? c.vars.time_zone : undefined);
  return zone && isTimeZone(zone) ? zone : 'UTC';
}

/**
 * What the step's typed answer is read against: its declared options or its list's choices, as typed
 * answers keep them. The function returned is anonymous on purpose: a named one (an object's property,
 * a `const`) is renamed on each call when run through tsx (esbuild's keepNames): about 3% of the
 * `understand` bench's dates CPU in a profile (docs/benchmarks.md, `npm run bench:ab`).
 */
function candidatesAt(typed: RunKit['typed'], e: StepEntry, s: InputStep, c: FlowContext) {
  return (from: CandidatesFrom) =>
    from === 'choices' ? typed.listedFor(c) : typed.declaredFor(e, c, () => s.options ?? []);
}

/** Reads an input step's answers for one compiled flow: each event's once. */
export function answerReader({ registry, localeOf, typed }: RunKit) {
  const answers = new WeakMap<object, Map<string, InputResult>>();
  return (e: StepEntry, s: InputStep, event: FlowEvent, c: FlowContext): InputResult => {
    let byStep = answers.get(event);
    if (!byStep) {
      byStep = new Map();
      answers.set(event, byStep);
    }
    let r = byStep.get(e.key);
    if (!r) {
      r = readAnswer(s, event, {
        vars: c.vars,
        locale: localeOf(e, c),
        registry,
        now: nowOf(event),
        labels: typed.labelsFor(e, c),
        timeZone: timeZoneOf(s, c),
        candidates: candidatesAt(typed, e, s, c),
        ...(e.flow.i18n ? { defaultLocale: e.flow.i18n.default_locale } : {}),
        ...(c.picked ? { picked: c.picked } : {}),
        ...(c.choices ? { choices: c.choices } : {}),
      });
      byStep.set(e.key, r);
    }
    return r;
  };
}

/** The close options of a clarifying question as buttons: a list's choices, or the step's options. */
export function clarifyButtons(
  e: StepEntry,
  s: InputStep,
  c: FlowContext,
  ids: readonly string[],
  say: RunKit['say'],
): ClarifyButton[] {
  const buttons: ClarifyButton[] = [];
  for (const id of ids) {
    if (s.options_from) {
      const text = c.choices?.[choiceIndexOf(id) ?? -1]?.text;
      if (text)
        buttons.push({ text, button: { type: 'callback', text, payload: choiceId(choiceIndexOf(id)!) } });
    } else {
      const o = s.options?.find((x) => x.id === id);
      const text = o ? say(e, c, o.text) : undefined;
      if (text) buttons.push({ text, button: { type: 'callback', text, payload: id } });
    }
  }
  return buttons;
}
