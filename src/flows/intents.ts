/**
 * Intents in a compiled flow (`understand:`): the transitions a menu or input step gets for free text, and
 * the guards and actions that classify it and take the intent's route. The built-in `keywords` classifier
 * runs in the guards (synchronous, deterministic); a registered classifier runs as a task started by the
 * text, and its `task.done` routes the step. A step's own intents and the flow's global ones are classified
 * together; global ones go to the flow's steps from wherever the person is, like commands.
 */
import type { Effect, FlowEvent } from '../engine/step/contract.ts';
import { durationMs } from '../engine/step/durations.ts';
import type { Understand } from './kinds/fields.ts';
import type { FlowFile, Step } from './kinds/steps.ts';
import type { Args, Enqueue, FlowContext, StepEntry } from './machine-context.ts';
import { flowAction, nowOf } from './machine-context.ts';
import {
  ClassifierResult,
  DEFAULT_THRESHOLD,
  type IntentKeywords,
  KEYWORDS_CLASSIFIER,
} from './schema-intents.ts';
import type { Route } from './schema-parts.ts';
import { classifyKeywords } from './understand/keywords.ts';

/** The ref a step's classification task comes back under. */
export const understandRef = (stepKey: string) => `${stepKey}:understand`;

type Act = (type: string, params: Record<string, unknown>) => unknown;
type T = Record<string, unknown>;
/** Transitions by where compile.ts puts them: `first` before a free-text step's answers, `message` after. */
export interface IntentTransitions {
  first: T[];
  message: T[];
  'task.done': T[];
  'task.failed': T[];
}

/** What intents ask of a step's kind: its fields of the same names in kinds/contract.ts. */
export interface IntentTraits {
  readonly understands: boolean;
  readonly readsText?: boolean;
  offersChoices?(step: Step): boolean;
  onText?(step: Step): Route | undefined;
}

/** The step's own `understand:` (a kind that understands typed text has the field). */
const understandOf = (step: Step, kind: IntentTraits): Understand | undefined =>
  kind.understands ? (step as { understand?: Understand }).understand : undefined;
const isAsync = (u: Understand | undefined) =>
  !!u && (u.classifier ?? KEYWORDS_CLASSIFIER) !== KEYWORDS_CLASSIFIER;

/** The transitions of intents at the step `key` of `root` (or of a flow it calls). */
export function intentTransitions(
  root: FlowFile,
  key: string,
  step: Step,
  kind: IntentTraits,
  act: Act,
): IntentTransitions {
  const out: IntentTransitions = { first: [], message: [], 'task.done': [], 'task.failed': [] };
  const own = understandOf(step, kind);
  const global = root.understand;
  if (!own && !global) return out;
  if (!kind.understands) return out;
  const shown = !kind.readsText; // typed text that is no answer otherwise draws the step again
  const onText = kind.onText?.(step);
  const s = { step: key };
  const local = Object.entries(own?.intents ?? {}).map(([intent, route]) => ({
    guard: act('intent', { ...s, intent }),
    ...(route.goto ? { target: route.goto } : {}),
    actions: [act('intentRoute', { ...s, intent })],
  }));
  const globals = Object.entries(global?.intents ?? {})
    .filter(([intent]) => !own?.intents[intent])
    .map(([intent, route]) => ({
      guard: act('intent', { ...s, intent, global: true }),
      ...(route.goto ? { target: `#${root.flow}.${route.goto}` } : {}),
      actions: [act('intentRoute', { ...s, intent, global: true })],
    }));
  const fallbacks: T[] = [];
  const unclear = own?.unclear ?? global?.unclear;
  if (unclear && (own?.unclear || shown))
    fallbacks.push({
      guard: act('intentUnclear', s),
      ...(unclear.goto ? { target: unclear.goto } : {}),
      actions: [
        act('unrecognisedText', s),
        act('intentRoute', { ...s, which: 'unclear', ...(own?.unclear ? {} : { global: true }) }),
      ],
    });
  // A global `unknown` stands in only for a menu's shrug (no `on_text`): an input's answer errors stay.
  const unknown = own?.unknown ?? (shown && !onText ? global?.unknown : undefined);
  const unknownT = unknown
    ? {
        guard: act('intentUnknown', s),
        ...(unknown.goto ? { target: unknown.goto } : {}),
        actions: [
          act('unrecognisedText', s),
          act('intentRoute', { ...s, which: 'unknown', ...(own?.unknown ? {} : { global: true }) }),
        ],
      }
    : undefined;
  if (unknownT) fallbacks.push(unknownT);
  if (isAsync(own)) {
    // The text starts the classifier; its result (or failure: no intent) routes the step.
    out.message.push({ guard: act('understandText', s), actions: [act('understandStart', s)] });
    // Nothing routes the result: a menu's `on_text` (as for text without understand), else the step again.
    const shrug = onText
      ? {
          ...(onText.goto ? { target: onText.goto } : {}),
          actions: [act('unrecognisedText', s), act('route', { ...s, route: 'on_text' })],
        }
      : { actions: [act('unrecognisedText', s), act('intentShrug', s)] };
    out['task.done'].push(...globals, ...local, ...fallbacks, { guard: act('understood', s), ...shrug });
    out['task.failed'].push(...(unknownT ? [unknownT] : []), { guard: act('understood', s), ...shrug });
    return out;
  }
  // Global intents come before a free-text step's answer ("talk to a human" is no name); where the step
  // offers choices, a text naming one wins (it was taken before these transitions).
  if (kind.offersChoices?.(step) ?? true) out.message.push(...globals);
  else out.first.push(...globals);
  out.message.push(...local, ...fallbacks);
  return out;
}

/** What the intent actions share with the other actions of a flow (actions.ts). */
export interface IntentKit {
  entry(key: string): StepEntry;
  /** The kind of a step (kinds/registry.ts, handed down by compile.ts). */
  kindOf(step: Step): IntentTraits;
  root: FlowFile;
  localeOf(e: StepEntry, c: FlowContext): string;
  effect(enqueue: Enqueue, effect: Effect): void;
  render(e: StepEntry, c: FlowContext, enqueue: Enqueue, fresh: boolean): void;
  runRoute(
    e: StepEntry,
    c: FlowContext,
    route: Route | undefined,
    enqueue: Enqueue,
    now: number,
  ): FlowContext;
}

type P = { step: string; intent?: string; global?: boolean; which?: 'unclear' | 'unknown' };
type G = { context: FlowContext; event: FlowEvent };

/** How a step reads intents: its setup, this event's classification (once per event), the route taken. */
function intentReader(k: IntentKit) {
  /** The keywords a step is read with: its own flow's (a called flow's), over the calling flow's. */
  const keywordsOf = (e: StepEntry): IntentKeywords =>
    e.flow === k.root ? (k.root.intents ?? {}) : { ...k.root.intents, ...e.flow.intents };
  /** The step's understand block and the intents it classifies among (its own, then the global ones). */
  const setupOf = (e: StepEntry) => {
    const own = understandOf(e.step, k.kindOf(e.step));
    const global = k.root.understand;
    const intents = [...new Set([...Object.keys(own?.intents ?? {}), ...Object.keys(global?.intents ?? {})])];
    return { own, global, intents, threshold: (own ?? global)?.threshold ?? DEFAULT_THRESHOLD };
  };
  const cache = new WeakMap<object, Map<string, ClassifierResult | undefined>>();
  /** The classification of this event at this step: the keywords' now, or a classifier task's result. */
  const classified = (e: StepEntry, event: FlowEvent, c: FlowContext): ClassifierResult | undefined => {
    let byStep = cache.get(event);
    if (!byStep) {
      byStep = new Map();
      cache.set(event, byStep);
    }
    if (byStep.has(e.key)) return byStep.get(e.key);
    const { own, intents } = setupOf(e);
    let r: ClassifierResult | undefined;
    if (event.type === 'message' && event.text?.trim() && !isAsync(own))
      r = classifyKeywords(event.text, k.localeOf(e, c), intents, keywordsOf(e));
    else if (event.type === 'task.done' && event.ref === understandRef(e.key)) {
      const parsed = ClassifierResult.safeParse(event.result);
      r = parsed.success ? parsed.data : { intent: null, confidence: 0 };
    } else if (event.type === 'task.failed' && event.ref === understandRef(e.key))
      r = { intent: null, confidence: 0 };
    byStep.set(e.key, r);
    return r;
  };
  const routeOf = (e: StepEntry, p: P): (Route & { save_slots?: boolean }) | undefined => {
    const { own, global } = setupOf(e);
    const u = p.global ? global : own;
    if (p.which) return u?.[p.which];
    return p.intent ? u?.intents[p.intent] : undefined;
  };
  return { setupOf, classified, routeOf };
}

type Reader = ReturnType<typeof intentReader>;

/** The intent guards: a confident intent, an unclear one, none, a classifier's answer, free text. */
function intentGuards(k: IntentKit, { setupOf, classified }: Reader) {
  return {
    /** A confident classification as this intent (a global one only where the step does not declare it). */
    intent: ({ context, event }: G, p: P) => {
      const e = k.entry(p.step);
      const r = classified(e, event, context);
      return !!r && r.intent === p.intent && r.confidence >= setupOf(e).threshold;
    },
    intentUnclear: ({ context, event }: G, p: P) => {
      const e = k.entry(p.step);
      const r = classified(e, event, context);
      return (
        !!r &&
        r.intent !== null &&
        setupOf(e).intents.includes(r.intent) &&
        r.confidence < setupOf(e).threshold
      );
    },
    /** No intent (or one the step does not accept, or unclear with no `unclear:` route). */
    intentUnknown: ({ context, event }: G, p: P) => !!classified(k.entry(p.step), event, context),
    /** This step's classifier task answered (or failed). */
    understood: ({ context, event }: G, p: P) => !!classified(k.entry(p.step), event, context),
    /** Free text at a step whose classifier is a task. */
    understandText: ({ event }: G) => event.type === 'message' && !!event.text?.trim(),
  };
}

/** The intent actions: an intent's route, a classifier task started, unrecognised text, the step again. */
function intentActions(k: IntentKit, { setupOf, classified, routeOf }: Reader) {
  return {
    intentRoute: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const e = k.entry(p.step);
      const route = routeOf(e, p);
      if (!route) return;
      const r = classified(e, event, context);
      let c =
        context.mid || context.heard !== undefined
          ? { ...context, mid: undefined, heard: undefined }
          : context;
      if (c !== context) enqueue.assign({ mid: undefined, heard: undefined });
      if (route.save_slots && r?.slots) {
        c = { ...c, vars: { ...c.vars, ...r.slots } };
        enqueue.assign({ vars: c.vars });
      }
      const { save_slots: _, ...plain } = route;
      k.runRoute(e, c, plain, enqueue, nowOf(event));
    }),
    /** A registered classifier gets the text: a task whose result comes back as `task.done`. */
    understandStart: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const e = k.entry(p.step);
      const { own, intents } = setupOf(e);
      if (event.type !== 'message' || !own?.classifier) return;
      // The text is kept until the answer comes: if nothing takes it, the funnel counts it with a sample.
      enqueue.assign({ heard: event.text ?? '' });
      k.effect(enqueue, {
        kind: 'task.start',
        task: own.classifier,
        input: { text: event.text ?? '', locale: k.localeOf(e, context), intents, vars: context.vars },
        ref: understandRef(p.step),
        policy: own.timeout ? { timeoutMs: durationMs(own.timeout) } : {},
      });
    }),
    /**
     * Nothing at the step took the typed text (an intent's `unknown` or `unclear`, a menu's `on_text`, the
     * step drawn again): the funnel counts it at the step, with the text as a sample (`input.unrecognised`).
     * A classifier task's answer carries no text: the one it was given was kept as `heard`.
     */
    unrecognisedText: flowAction(({ context, event, enqueue }: Args) => {
      const text = event.type === 'message' ? event.text : context.heard;
      if (context.heard !== undefined) enqueue.assign({ heard: undefined });
      if (text?.trim()) k.effect(enqueue, { kind: 'input.unrecognised', text });
    }),
    /** Nothing routes the classification: the step is shown again, below. */
    intentShrug: flowAction(({ context, enqueue }: Args, p: P) => {
      k.render(k.entry(p.step), { ...context, mid: undefined }, enqueue, true);
    }),
  };
}

/** The intent guards and actions of a flow. */
export function intentParts(k: IntentKit) {
  const reader = intentReader(k);
  return { actions: intentActions(k, reader), guards: intentGuards(k, reader) };
}
