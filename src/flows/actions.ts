/**
 * What the compiled machine does at run time: the implementations of its named actions and guards.
 * Every action is an `assign` or emits `botflow.effect` actions whose params are `Effect`s; nothing
 * here does I/O or reads a clock.
 */
import { resolve as resolvePath } from 'node:path';
import { assign, enqueueActions } from 'xstate';
import { EFFECT_ACTION, type Effect, type FlowEvent } from '../engine/step/contract.ts';
import { builtinText } from './builtin-texts.ts';
import { evaluateCondition } from './conditions.ts';
import { designerParts, enterCall } from './designer-actions.ts';
import { durationMs } from './durations.ts';
import { type InputResult, isAnswerEvent, kindsOf, MULTI_DONE, readAnswer, type SayText } from './inputs.ts';
import type { Args, Enqueue, FlowContext, StepEntry, StepParams } from './machine-context.ts';
import type { Registry } from './registry.ts';
import type { Button, Condition, FlowFile, InputStep, Route } from './schema.ts';

/** The event's time: `meta.now`, or the start input's for the first entry. */
export function nowOf(event: unknown): number {
  const e = event as { meta?: { now?: number }; input?: { meta?: { now?: number } } };
  return e.meta?.now ?? e.input?.meta?.now ?? 0;
}

/** The ref of sends whose message id the flow keeps for `render: edit`. */
export const RENDER_REF = 'render';
export const RERENDER_EVENT = 'botflow.rerender';
export { COMMANDS_ENTRY } from './designer-actions.ts';
export type { Args, Enqueue, FlowContext, StepEntry } from './machine-context.ts';

/** Builds the named actions and guards of a compiled flow. */
export function actionsFor(
  steps: Map<string, StepEntry>,
  root: FlowFile,
  registry: Registry,
  usesEdit: boolean,
  baseDir: string,
) {
  const entry = (key: string) => steps.get(key)!;
  const globals = new Set(Object.keys(root.commands ?? {}));
  const localeOf = (e: StepEntry, c: FlowContext) =>
    e.text.locale(typeof c.vars.locale === 'string' ? c.vars.locale : c.locale);
  const scope = (c: FlowContext, e: StepEntry, now: number, params?: Record<string, unknown>) => ({
    vars: c.vars,
    locale: localeOf(e, c),
    params: params ?? {},
    now,
  });
  const say = (e: StepEntry, c: FlowContext, text: SayText | string): string => {
    if (typeof text === 'string') return e.text.render(text, c.vars, localeOf(e, c));
    if ('literal' in text) return text.literal;
    if ('flowText' in text) return e.text.render(text.flowText, c.vars, localeOf(e, c));
    // A built-in text: the flow's `texts:` override, the flow's own catalog (`botflow-<key>`), botflow's.
    const args = text.args ?? {};
    const override = e.flow.texts?.[text.builtin] ?? root.texts?.[text.builtin];
    const locale = localeOf(e, c);
    if (override) return e.text.render(override, { ...c.vars, ...args }, locale);
    const id = `botflow-${text.builtin}`;
    if (e.text.has?.(id, locale)) return e.text.render(id, { ...c.vars, ...args }, locale);
    return builtinText(text.builtin, locale, args);
  };
  const doneText = (e: StepEntry, c: FlowContext) => say(e, c, { builtin: 'multi-done' });
  const effect = (enqueue: Enqueue, params: Effect) => enqueue({ type: EFFECT_ACTION, params });
  const send = (enqueue: Enqueue, e: StepEntry, text: string) =>
    effect(enqueue, {
      kind: 'api',
      op: 'sendMessage',
      args: { text, format: e.format },
      ...(usesEdit ? { ref: RENDER_REF } : {}),
    });

  const button = (e: StepEntry, c: FlowContext, b: Button) => {
    const text = say(e, c, b.text);
    if (b.url) return { type: 'link', text, url: b.url };
    if (b.request === 'contact') return { type: 'request_contact', text };
    if (b.request === 'location') return { type: 'request_geo_location', text };
    return { type: 'callback', text, payload: b.value ? `${b.id}:${b.value}` : b.id! };
  };
  const keyboardOf = (e: StepEntry, c: FlowContext) => {
    const s = e.step;
    const rows: unknown[][] = [];
    if (s.type === 'input' && s.options) {
      const per = s.columns ?? 1;
      const multi = kindsOf(s).includes('multi_choice');
      const mark = (id: string) => (multi && c.picked?.includes(id) ? '✓ ' : '');
      for (let i = 0; i < s.options.length; i += per) {
        rows.push(
          s.options
            .slice(i, i + per)
            .map((o) => ({ type: 'callback', text: mark(o.id) + say(e, c, o.text), payload: o.id })),
        );
      }
      if (multi) rows.push([{ type: 'callback', text: doneText(e, c), payload: MULTI_DONE }]);
    }
    if ('keyboard' in s && s.keyboard)
      for (const row of s.keyboard) rows.push(row.map((b) => button(e, c, b)));
    return rows.length ? { type: 'inline_keyboard', payload: { buttons: rows } } : undefined;
  };

  const render = (e: StepEntry, c: FlowContext, enqueue: Enqueue, forceNew = false) => {
    const s = e.step;
    if (s.type === 'branch') return;
    const text = s.say ? say(e, c, s.say) : undefined;
    const keyboard = s.type === 'end' ? undefined : keyboardOf(e, c);
    const media = s.media ? Object.entries(s.media).find(([, v]) => v) : undefined;
    const attachments: unknown[] = keyboard ? [keyboard] : [];
    if (media) {
      const [type, source] = media as ['image' | 'video' | 'audio' | 'file', string];
      if (type === 'image' && /^https?:\/\//.test(source)) {
        attachments.unshift({ type: 'image', payload: { url: source } });
      } else {
        effect(enqueue, {
          kind: 'upload_and_send',
          media: { type, source: /^https?:\/\//.test(source) ? source : resolvePath(baseDir, source) },
          message: { text, attachments: attachments as never, format: e.format },
          ...(usesEdit ? { ref: RENDER_REF } : {}),
        });
        return;
      }
    }
    if (!text && !attachments.length) return;
    const mode = 'render' in s && s.render ? s.render : e.flow.defaults?.render;
    const edit = !forceNew && mode === 'edit' && c.mid && !media;
    if (edit) {
      effect(enqueue, {
        kind: 'api',
        op: 'editMessage',
        args: { message_id: c.mid, text, attachments, format: e.format },
      });
      return;
    }
    effect(enqueue, {
      kind: 'api',
      op: 'sendMessage',
      args: { text, attachments, format: e.format },
      ...(usesEdit ? { ref: RENDER_REF } : {}),
    });
  };

  const timerCache = new Map<string, { name: string; delayMs: number }[]>();
  const timersOf = (e: StepEntry) => {
    let cached = timerCache.get(e.key);
    if (!cached) {
      cached = computeTimers(e);
      timerCache.set(e.key, cached);
    }
    return cached;
  };
  const computeTimers = (e: StepEntry) => {
    const s = e.step;
    if (!('remind' in s) && !('idle' in s)) return [];
    const out: { name: string; delayMs: number }[] = [];
    if ('remind' in s)
      for (const [i, r] of (s.remind ?? []).entries()) {
        out.push({ name: `${e.key}:remind:${i}`, delayMs: durationMs(r.after) });
      }
    if ('idle' in s && s.idle) out.push({ name: `${e.key}:idle`, delayMs: durationMs(s.idle.after) });
    return out;
  };
  const arm = (e: StepEntry, enqueue: Enqueue) => {
    for (const t of timersOf(e)) effect(enqueue, { kind: 'timer.arm', ...t });
  };
  const runEffects = (
    e: StepEntry,
    c: FlowContext,
    calls: { effect: string; params?: Record<string, unknown> }[] | undefined,
    enqueue: Enqueue,
    now: number,
  ) => {
    for (const call of calls ?? []) {
      const factory = registry.effects[call.effect];
      if (!factory) continue;
      const out = factory(scope(c, e, now, call.params));
      for (const x of Array.isArray(out) ? out : [out]) effect(enqueue, x);
    }
  };
  const runRoute = (
    e: StepEntry,
    c: FlowContext,
    route: Route | undefined,
    enqueue: Enqueue,
    now: number,
  ) => {
    if (!route) return c;
    const next = route.set ? { ...c, vars: { ...c.vars, ...route.set } } : c;
    if (route.set) enqueue.assign({ vars: next.vars });
    if (route.come_back && route.goto && e.topLevel) enqueue.assign({ back: e.id, editing: route.goto });
    else if (route.goto && c.back !== undefined) enqueue.assign({ back: undefined, editing: undefined });
    if (route.say) send(enqueue, e, say(e, next, route.say));
    runEffects(e, next, route.do, enqueue, now);
    return next;
  };
  const routeOf = (e: StepEntry, which: string): Route | undefined => {
    const s = e.step;
    if (which === 'exhausted' && s.type === 'input') return s.retries.exhausted;
    if (which === 'idle' && 'idle' in s && s.idle) return { say: s.idle.say };
    if (which === 'on_text' && s.type === 'menu') return s.on_text;
    if (which.startsWith('button:') && 'keyboard' in s) {
      return s.keyboard?.flat().find((b) => b.id === which.slice(7));
    }
    if (which.startsWith('command:')) return root.commands?.[which.slice(8)];
    return undefined;
  };
  // Several guards and then an action read the same answer during one transition: parse it once.
  const answers = new WeakMap<object, Map<string, InputResult>>();
  const answerFor = (e: StepEntry, s: InputStep, event: FlowEvent, c: FlowContext): InputResult => {
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
        ...(c.picked ? { picked: c.picked } : {}),
      });
      byStep.set(e.key, r);
    }
    return r;
  };
  const isLocal = (event: FlowEvent) => !(event.type === 'command' && globals.has(event.name));
  const nextCondition = (e: StepEntry, i: number): Condition | undefined => {
    const s = e.step;
    if (s.type === 'branch') return s.cases[i]?.when;
    if ('next' in s && Array.isArray(s.next)) return s.next[i]?.when;
    return undefined;
  };

  type P = StepParams;
  const designer = designerParts({ entry, say, keyboardOf, effect, send, root, globals });
  const actions = {
    [EFFECT_ACTION]: () => {},
    enter: enqueueActions(({ context, event, enqueue }: Args, p: P) => {
      const e = entry(p.step);
      const s = e.step;
      const c = enterCall(s, context, enqueue);
      enqueue.assign({ retries: 0, picked: [], ...(e.topLevel ? { at: e.id } : {}) });
      // A `come_back` edit is over once the conversation goes anywhere but the step being edited.
      if (e.topLevel && c.back !== undefined && c.editing !== e.id)
        enqueue.assign({ back: undefined, editing: undefined });
      // `render: edit` redraws the message whose button was pressed; anything else (a typed answer, a
      // command, a timer) gets a new message below, so nothing the person answered is rewritten above them.
      render(e, { ...c, picked: [] }, enqueue, (event as { type?: string }).type !== 'button');
      runEffects(e, c, 'do' in s ? s.do : undefined, enqueue, nowOf(event));
      arm(e, enqueue);
    }),
    ...designer.actions,
    leave: enqueueActions(({ enqueue }: Args, p: P) => {
      for (const t of timersOf(entry(p.step))) effect(enqueue, { kind: 'timer.cancel', name: t.name });
    }),
    rerender: enqueueActions(({ context, enqueue }: Args, p: P) => {
      render(entry(p.step), context, enqueue, p.fresh === true);
    }),
    route: enqueueActions(({ context, event, enqueue }: Args, p: P) => {
      const e = entry(p.step);
      const c =
        event.type === 'button' && event.message?.body.mid && usesEdit
          ? { ...context, mid: event.message.body.mid }
          : context;
      if (c !== context) enqueue.assign({ mid: c.mid });
      else if (event.type !== 'button' && context.mid) enqueue.assign({ mid: undefined });
      const withValue =
        event.type === 'button' && event.value !== undefined
          ? { ...c, vars: { ...c.vars, button_value: event.value } }
          : c;
      if (withValue !== c) enqueue.assign({ vars: withValue.vars });
      runRoute(e, withValue, routeOf(e, p.route ?? ''), enqueue, nowOf(event));
    }),
    remind: enqueueActions(({ context, enqueue }: Args, p: P) => {
      const e = entry(p.step);
      const s = e.step;
      const r = 'remind' in s ? s.remind?.[p.index ?? 0] : undefined;
      if (r) send(enqueue, e, say(e, context, r.say));
    }),
    accept: enqueueActions(({ context, event, enqueue }: Args, p: P) => {
      const e = entry(p.step);
      const s = e.step;
      if (s.type !== 'input') return;
      const r = answerFor(e, s, event, context);
      if (r.ok && s.save) enqueue.assign({ vars: { ...context.vars, [s.save]: r.value }, retries: 0 });
      // After a typed answer, the next step is a new message below it: `render: edit` only replaces a
      // message whose button was pressed.
      if (event.type === 'button' && event.message?.body.mid && usesEdit)
        enqueue.assign({ mid: event.message.body.mid });
      else if (event.type !== 'button') enqueue.assign({ mid: undefined });
    }),
    reject: enqueueActions(({ context, event, enqueue }: Args, p: P) => {
      const e = entry(p.step);
      const s = e.step;
      if (s.type !== 'input') return;
      const r = answerFor(e, s, event, context);
      if (r.ok) return;
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
    restart: assign(({ event }: { event: FlowEvent }) => ({
      vars: event.type === 'bot_started' && event.payload ? { start_payload: event.payload } : {},
      retries: 0,
    })),
    keepMessageId: assign(({ event, context }: { event: FlowEvent; context: FlowContext }) => {
      const result =
        event.type === 'effect.done'
          ? (event.result as { message?: { body?: { mid?: string } } })
          : undefined;
      return { mid: result?.message?.body?.mid ?? context.mid };
    }),
  };

  const guards = {
    ...designer.guards,
    answer: ({ context, event }: { context: FlowContext; event: FlowEvent }, p: P) => {
      const e = entry(p.step);
      const s = e.step;
      if (s.type !== 'input' || !isLocal(event) || !isAnswerEvent(s, event)) return false;
      if (p.back === true && context.back === undefined) return false;
      const r = answerFor(e, s, event, context);
      if (!r.ok) return false;
      const when = p.index === undefined ? undefined : nextCondition(e, p.index ?? 0);
      if (!when) return true;
      const vars = s.save ? { ...context.vars, [s.save]: r.value } : context.vars;
      return evaluateCondition(when, vars, localeOf(e, context), registry, nowOf(event));
    },
    exhausted: ({ context, event }: { context: FlowContext; event: FlowEvent }, p: P) => {
      const s = entry(p.step).step;
      return (
        s.type === 'input' &&
        isLocal(event) &&
        isAnswerEvent(s, event) &&
        context.retries + 1 >= s.retries.max
      );
    },
    local: ({ event }: { event: FlowEvent }) => isLocal(event),
    answerEvent: ({ event }: { event: FlowEvent }, p: P) => {
      const s = entry(p.step).step;
      return s.type === 'input' && isLocal(event) && isAnswerEvent(s, event);
    },
    cond: ({ context, event }: { context: FlowContext; event: FlowEvent }, p: P) => {
      const e = entry(p.step);
      const when = nextCondition(e, p.index ?? 0);
      return !when || evaluateCondition(when, context.vars, localeOf(e, context), registry, nowOf(event));
    },
    button: ({ event }: { event: FlowEvent }, p: { id: string }) =>
      event.type === 'button' && event.button === p.id,
    command: ({ event }: { event: FlowEvent }, p: { name: string }) =>
      event.type === 'command' && event.name === p.name,
    timer: ({ event }: { event: FlowEvent }, p: { name: string }) =>
      event.type === 'timer' && event.name === p.name,
    returnTo: ({ context }: { context: FlowContext }, p: { step: string }) => context.at === p.step,
    rendered: ({ event }: { event: FlowEvent }) => event.type === 'effect.done' && event.ref === RENDER_REF,
  };
  return { actions, guards, say, localeOf };
}
