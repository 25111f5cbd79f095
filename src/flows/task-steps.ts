/**
 * Tasks in flow files: a message step whose `do:` names a task starts it when entered and waits for its
 * result instead of moving on. The result saves into `save_as` and takes `on_done` (default: the step's
 * `next`, whose conditions see the result); a failure takes the `on_error` entry for its code, a timeout
 * `on_timeout`; messages sent meanwhile are queued (handled by the step the result leads to), answered
 * with a word (`ignore`), or cancel the task (`cancel`, then the `cancelled` error path).
 */
import type { Effect, FlowEvent } from '../engine/step/contract.ts';
import { durationMs } from '../engine/step/durations.ts';
import { conditionText, evaluateCondition } from './conditions.ts';
import { computeSet, isExpression } from './expressions.ts';
import type { SayText } from './inputs.ts';
import type { TaskCall } from './kinds/fields.ts';
import type { Step } from './kinds/steps.ts';
import type { Args, Enqueue, FlowContext, StepEntry } from './machine-context.ts';
import { flowAction, nowOf } from './machine-context.ts';
import type { Registry } from './registry.ts';
import type { Condition, Route } from './schema-parts.ts';
import { readVar } from './vars.ts';

/** The task a step starts (at most one: `botflow check` refuses more), if any. */
export function taskOf(step: Step): TaskCall | undefined {
  const calls = 'do' in step ? (step.do ?? []) : [];
  return calls.find((c): c is TaskCall => 'task' in c);
}

/** The ref a step's task result comes back under. */
export const taskRef = (stepKey: string) => `${stepKey}:task`;

/** The code a cancelled task fails with (the `cancel` input policy). */
export const CANCELLED = 'cancelled';

type TaskRoute = NonNullable<TaskCall['on_done']>;
const asRoute = (r: TaskRoute | undefined): Route | undefined => (typeof r === 'string' ? { goto: r } : r);

/** The failure routes of a task in order: a timeout first (when `on_timeout`), then `on_error`'s entries. */
export function errorRoutes(task: TaskCall): { codes?: string[]; route: Route }[] {
  const out: { codes?: string[]; route: Route }[] = [];
  if (task.on_timeout) out.push({ codes: ['timeout'], route: asRoute(task.on_timeout)! });
  const e = task.on_error;
  if (Array.isArray(e)) {
    for (const { code, ...route } of e)
      out.push({ ...(code !== undefined ? { codes: [code].flat() } : {}), route });
  } else if (e !== undefined) out.push({ route: asRoute(e)! });
  return out;
}

/**
 * The transitions a task step adds (by event type), where `next` is the message step's next (one step id
 * or conditional entries). `act`/`guard` build named action and guard references.
 */
export function taskTransitions(
  key: string,
  task: TaskCall,
  next: { when?: Condition; goto: string; set?: Readonly<Record<string, unknown>> }[],
  act: (type: string, params: Record<string, unknown>) => unknown,
): Record<string, unknown[]> {
  const s = { step: key };
  const done = asRoute(task.on_done);
  const onDone = done?.goto
    ? [{ guard: act('taskFor', s), target: done.goto, actions: [act('taskDone', s)] }]
    : next.map((n, i) => ({
        guard: act('taskNext', { ...s, index: i, ...(n.when ? { when: conditionText(n.when) } : {}) }),
        target: n.goto,
        actions: [act('taskDone', s), ...(n.set ? [act('nextSet', { ...s, index: i })] : [])],
      }));
  const failures = errorRoutes(task).map((r, i) => ({
    guard: act('taskFailed', { ...s, index: i, label: r.codes ? `failed: ${r.codes.join('/')}` : 'failed' }),
    ...(r.route.goto ? { target: r.route.goto } : {}),
    // The label names the route in coverage reports: `task error slot_taken`, `task error`.
    actions: [
      act('taskError', { ...s, index: i, label: `task error${r.codes ? ` ${r.codes.join('/')}` : ''}` }),
    ],
  }));
  // No route for this failure: the person is told, and stays (a global command takes them elsewhere).
  if (errorRoutes(task).every((r) => r.codes))
    failures.push({ guard: act('taskFor', s), actions: [act('taskError', { ...s, label: 'task failed' })] });
  const policy = task.while_running ?? 'queue';
  const routes = errorRoutes(task);
  const explicit = routes.findIndex((r) => r.codes?.includes(CANCELLED));
  const cancelRoute = explicit >= 0 ? explicit : routes.findIndex((r) => !r.codes);
  const onMessage =
    policy === 'cancel'
      ? [
          {
            ...(cancelRoute >= 0 && routes[cancelRoute]!.route.goto
              ? { target: routes[cancelRoute]!.route.goto }
              : {}),
            actions: [act('taskCancel', { ...s, ...(cancelRoute >= 0 ? { index: cancelRoute } : {}) })],
          },
        ]
      : [{ actions: [act(policy === 'queue' ? 'taskQueue' : 'taskBusy', s)] }];
  return { 'task.done': onDone, 'task.failed': failures, message: onMessage };
}

/** What the task actions share with the other actions of a flow (actions.ts). */
export interface TaskKit {
  entry(key: string): StepEntry;
  localeOf(e: StepEntry, c: FlowContext): string;
  say(e: StepEntry, c: FlowContext, text: SayText | string): string;
  send(enqueue: Enqueue, e: StepEntry, text: string): void;
  effect(enqueue: Enqueue, effect: Effect): void;
  runRoute(
    e: StepEntry,
    c: FlowContext,
    route: Route | undefined,
    enqueue: Enqueue,
    now: number,
  ): FlowContext;
  nextCondition(e: StepEntry, i: number): Condition | undefined;
  registry: Registry;
}

type P = { step: string; index?: number };
type TaskEvent = Extract<FlowEvent, { type: 'task.done' | 'task.failed' }>;

const isTaskEvent = (event: FlowEvent, key: string): event is TaskEvent =>
  (event.type === 'task.done' || event.type === 'task.failed') && event.ref === taskRef(key);

/** The task's input: "{{var}}" copies a value, "= expr" computes one, anything else is taken as written. */
export function taskInput(task: TaskCall, c: FlowContext, scope: { now: number; locale: string }): unknown {
  const input = task.input ?? {};
  const computed = computeSet(
    Object.fromEntries(Object.entries(input).filter(([, v]) => isExpression(v))),
    c.vars,
    scope,
  );
  return Object.fromEntries(
    Object.entries(input).map(([k, v]) => {
      if (k in computed) return [k, computed[k]];
      const m = typeof v === 'string' ? /^\{\{\s*([\w.]+)\s*\}\}$/.exec(v) : null;
      return [k, m ? (readVar(c.vars, m[1]!) ?? null) : v];
    }),
  );
}

/** The task actions and guards of a flow. */
export function taskParts(k: TaskKit) {
  const taskOfKey = (key: string) => taskOf(k.entry(key).step)!;
  /** Saves the result (or the error) and replays the messages queued while the task ran. */
  const settle = (c: FlowContext, event: TaskEvent, enqueue: Enqueue, task: TaskCall): FlowContext => {
    // `task_error` tells how the last task ended: a result takes it away (docs/flows.md, built-in variables).
    const { task_error: _last, ...rest } = c.vars;
    const vars =
      event.type === 'task.done'
        ? { ...rest, ...(task.save_as ? { [task.save_as]: event.result } : {}) }
        : { ...c.vars, task_error: event.error };
    const next = { ...c, vars, queued: undefined };
    enqueue.assign({ vars, queued: undefined });
    for (const queued of c.queued ?? []) enqueue.raise(queued);
    return next;
  };
  const actions = {
    /** Entering a task step: the task starts (its input computed now, on the event's clock). */
    taskStart: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const e = k.entry(p.step);
      const task = taskOfKey(p.step);
      const now = nowOf(event);
      k.effect(enqueue, {
        kind: 'task.start',
        task: task.task,
        input: taskInput(task, context, { now, locale: k.localeOf(e, context) }),
        ref: taskRef(p.step),
        policy: {
          ...(task.timeout ? { timeoutMs: durationMs(task.timeout) } : {}),
          ...(task.retry ? { attempts: task.retry.attempts } : {}),
          ...(task.retry?.backoff ? { backoffMs: durationMs(task.retry.backoff) } : {}),
          ...(task.retry?.on ? { retryOn: task.retry.on } : {}),
          ...(task.retry?.only ? { retryOnly: task.retry.only } : {}),
          ...(task.on_cancel ? { onCancel: { task: task.on_cancel.task } } : {}),
        },
      });
    }),
    taskDone: flowAction(({ context, event, enqueue }: Args, p: P) => {
      if (!isTaskEvent(event, p.step)) return;
      const e = k.entry(p.step);
      const task = taskOfKey(p.step);
      const c = settle(context, event, enqueue, task);
      const done = asRoute(task.on_done);
      if (done) k.runRoute(e, c, { ...done, goto: undefined }, enqueue, nowOf(event));
    }),
    taskError: flowAction(({ context, event, enqueue }: Args, p: P) => {
      if (!isTaskEvent(event, p.step)) return;
      const e = k.entry(p.step);
      const task = taskOfKey(p.step);
      const c = settle(context, event, enqueue, task);
      const route = p.index === undefined ? undefined : errorRoutes(task)[p.index]?.route;
      if (route) k.runRoute(e, c, { ...route, goto: undefined }, enqueue, nowOf(event));
      else k.send(enqueue, e, k.say(e, c, { builtin: 'task-failed' }));
    }),
    taskQueue: flowAction(({ context, event, enqueue }: Args) => {
      enqueue.assign({ queued: [...(context.queued ?? []), event] });
    }),
    taskBusy: flowAction(({ context, enqueue }: Args, p: P) => {
      const e = k.entry(p.step);
      const policy = taskOfKey(p.step).while_running;
      const text = typeof policy === 'object' ? policy.ignore : undefined;
      k.send(enqueue, e, text ? k.say(e, context, text) : k.say(e, context, { builtin: 'task-busy' }));
    }),
    taskCancel: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const e = k.entry(p.step);
      const task = taskOfKey(p.step);
      k.effect(enqueue, { kind: 'task.cancel', ref: taskRef(p.step) });
      const vars = { ...context.vars, task_error: { code: CANCELLED, message: 'cancelled by the person' } };
      enqueue.assign({ vars });
      const route = p.index === undefined ? undefined : errorRoutes(task)[p.index]?.route;
      if (route) k.runRoute(e, { ...context, vars }, { ...route, goto: undefined }, enqueue, nowOf(event));
    }),
  };
  const guards = {
    taskFor: ({ event }: { event: FlowEvent }, p: P) => isTaskEvent(event, p.step),
    /** A result whose `next` entry `index` holds, its conditions seeing the result saved. */
    taskNext: ({ context, event }: { context: FlowContext; event: FlowEvent }, p: P) => {
      if (!isTaskEvent(event, p.step) || event.type !== 'task.done') return false;
      const e = k.entry(p.step);
      const when = k.nextCondition(e, p.index ?? 0);
      if (!when) return true;
      const task = taskOfKey(p.step);
      const vars = task.save_as ? { ...context.vars, [task.save_as]: event.result } : context.vars;
      return evaluateCondition(when, vars, k.localeOf(e, context), k.registry, nowOf(event));
    },
    /** A failure whose code the failure route `index` takes. */
    taskFailed: ({ event }: { event: FlowEvent }, p: P) => {
      if (!isTaskEvent(event, p.step) || event.type !== 'task.failed') return false;
      const codes = errorRoutes(taskOfKey(p.step))[p.index ?? 0]?.codes;
      return !codes || codes.includes(event.error.code);
    },
  };
  return { actions, guards };
}
