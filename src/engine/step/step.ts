/**
 * The pure step: restore a session's snapshot, run XState's `transition()` (or `initialTransition()` for a
 * new session) with one event, and turn the actions it returns into planned API calls and timer changes.
 * No clock, no I/O: the same inputs always give the same result, so it is tested without SQLite or HTTP.
 */
import { type AnyMachineSnapshot, type AnyStateMachine, createActor, createMachine } from 'xstate';
import { BotflowError } from '../../errors/index.ts';
import { pressCalls } from './answer-first.ts';
import {
  EFFECT_ACTION,
  type Effect,
  ENTERED_ACTION,
  type EventMeta,
  type FlowDefinition,
  type FlowInput,
} from './contract.ts';
import {
  EffectError,
  type PlanContext,
  type PlannedCall,
  planEffects,
  type TaskChange,
  type TimerChange,
} from './effects.ts';
import { FAILED_EVENT, flowFailureOf, type RecoveredFailure } from './failure.ts';
import type { TagChange } from './tags.ts';

/** A persisted XState snapshot as botflow stores it: empty parts left out to keep rows small. */
export interface StoredSnapshot {
  status: 'active' | 'done' | 'error' | 'stopped';
  value: unknown;
  context: unknown;
  historyValue?: Record<string, unknown>;
  output?: unknown;
  error?: unknown;
}

/** Where a conversation stands before the step. `snapshot` is absent when a new session starts. */
export interface StepState {
  snapshot?: StoredSnapshot;
  /** `snapshot` already restored onto the flow's machine (a previous step's `machineSnapshot`): not restored again. */
  machineSnapshot?: AnyMachineSnapshot;
  /** The conversation's latest revision (0 for a conversation never seen). */
  revision: number;
  /** Revision at which the current step was entered. */
  stepInstance: number;
}

/** What drives the step: a new session's input, or an event for the running one. */
export type StepCause =
  | { type: 'start'; input: FlowInput }
  | { type: 'event'; event: { type: string; meta: EventMeta } };

/** What the step needs besides the flow, the state and the cause. */
export interface StepOptions {
  conversationKey: string;
  /** Signs one button payload for a step instance (of the conversation `conversationKey`, passed along). */
  sign(instance: number, payload: string, conversationKey: string): string;
  /** The press being handled: its answer is sent before anything else the step does. */
  callback?: PlanContext['callback'];
}

/** The outcome of one step: everything the commit writes. */
export interface StepResult {
  snapshot: StoredSnapshot;
  /** The machine snapshot `snapshot` was stored from: the next step of the session can start from it. */
  machineSnapshot: AnyMachineSnapshot;
  status: 'active' | 'done';
  revision: number;
  stepInstance: number;
  /** The conversation entered another step: keyboards and timers of the previous one are stale. */
  stepChanged: boolean;
  /** The machine neither moved nor did anything: there is nothing to commit but the event's status. */
  idle: boolean;
  calls: PlannedCall[];
  timers: TimerChange[];
  /** Tasks started or cancelled. */
  tasks: TaskChange[];
  /** For the funnel: answers the step refused (`input.rejected`), texts nothing took (`input.unrecognised`). */
  rejected: number;
  unrecognised: string[];
  /** Tags the step set on the person or took off (`person.tags` effects). */
  tags?: TagChange;
  /** The flow's own code failed and the flow recovered (its `on_error`, or the apology and end). */
  failure?: RecoveredFailure;
  /**
   * Steps the event entered and left again before stopping at the snapshot's step (a branch, a message that
   * moves on), in order: the machine's `ENTERED_ACTION`s, less the step it stopped at and the calls around.
   */
  passed: string[];
}

/** A step that cannot run: the snapshot does not fit the flow, or the flow itself threw. */
export class StepError extends BotflowError {
  override name = 'StepError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_STEP_FAILED', message, options);
  }
}

type ExecutedAction = { type: string; params?: unknown };

/**
 * The actor scope a pure transition runs in. XState's `transition()` builds a throwaway actor for every
 * call, which computes the machine's initial state each time; botflow machines have no children (invoke
 * and spawn are refused when a flow is registered), so one inert scope per machine is reused and only its
 * action collector is swapped per call.
 */
interface PureScope {
  self: unknown;
  system: unknown;
  id: string;
  sessionId: string;
  defer(): void;
  logger(): void;
  stopChild(): void;
  emit(): void;
  actionExecutor(action: ExecutedAction): void;
}

const noop = () => {};
const EMPTY_MACHINE = createMachine({});
const scopes = new WeakMap<AnyStateMachine, PureScope>();

function scopeOf(machine: AnyStateMachine): PureScope {
  let scope = scopes.get(machine);
  if (!scope) {
    // A never-started actor of an empty machine: it only gives the scope a `self` and a `system`. An actor
    // of the flow's own machine would compute its initial state here, running the start step's entry
    // (its effect factories included) once more than the step that starts a session.
    const self = createActor(EMPTY_MACHINE);
    scope = {
      self,
      system: self.system,
      id: '',
      sessionId: '',
      defer: noop,
      logger: noop,
      stopChild: noop,
      emit: noop,
      actionExecutor: noop,
    };
    scopes.set(machine, scope);
  }
  return scope;
}

/** Runs `run` in the machine's pure scope, collecting the actions XState hands out instead of running them. */
function collecting<T>(machine: AnyStateMachine, run: (scope: never) => T): [T, ExecutedAction[]] {
  const scope = scopeOf(machine);
  const actions: ExecutedAction[] = [];
  scope.actionExecutor = (action) => {
    actions.push(action);
  };
  try {
    return [run(scope as never), actions];
  } finally {
    scope.actionExecutor = noop;
  }
}

/** Restores a stored snapshot onto `machine`; throws StepError when the flow has no such state. */
export function restoreSnapshot(flow: FlowDefinition, stored: StoredSnapshot): AnyMachineSnapshot {
  try {
    return flow.machine.restoreSnapshot(
      { ...stored, historyValue: stored.historyValue ?? {}, children: {} } as never,
      scopeOf(flow.machine) as never,
    ) as AnyMachineSnapshot;
  } catch (error) {
    throw new StepError(
      `cannot restore the session on flow "${flow.id}" version ${flow.version}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function isEmpty(record: unknown): boolean {
  if (!record) return true;
  for (const _ in record as object) return false;
  return true;
}

/** The stored form of a machine snapshot. */
export function storeSnapshot(machine: AnyStateMachine, snapshot: AnyMachineSnapshot): StoredSnapshot {
  const plain = snapshot as AnyMachineSnapshot & { historyValue?: unknown };
  if (isEmpty(plain.children) && isEmpty(plain.historyValue)) {
    // What getPersistedSnapshot() would give for a machine without child actors and history: its own
    // work (serializing actor references and history nodes) has nothing to do here.
    const stored: StoredSnapshot = { status: plain.status, value: plain.value, context: plain.context };
    if (plain.output !== undefined) stored.output = plain.output;
    if (plain.error !== undefined) stored.error = plain.error;
    return stored;
  }
  const persisted = machine.getPersistedSnapshot(snapshot) as Record<string, unknown>;
  const children = persisted.children as Record<string, unknown> | undefined;
  if (children && Object.keys(children).length > 0) {
    throw new StepError(
      `flow state has child actors (${Object.keys(children).join(', ')}); botflow flows cannot invoke or spawn: ` +
        'model the work as effects and events',
    );
  }
  const stored: StoredSnapshot = {
    status: persisted.status as StoredSnapshot['status'],
    value: persisted.value,
    context: persisted.context,
  };
  const history = persisted.historyValue as Record<string, unknown> | undefined;
  if (history && Object.keys(history).length > 0) stored.historyValue = history;
  if (persisted.output !== undefined) stored.output = persisted.output;
  if (persisted.error !== undefined) stored.error = persisted.error;
  return stored;
}

function collectEffects(
  flow: FlowDefinition,
  actions: readonly { type: string; params?: unknown }[],
): Effect[] {
  const effects: Effect[] = [];
  for (const action of actions) {
    if (action.type === EFFECT_ACTION) {
      effects.push(action.params as Effect);
    } else if (
      action.type === 'xstate.raise' &&
      (action.params as { delay?: unknown })?.delay !== undefined
    ) {
      throw new EffectError(
        `flow "${flow.id}" raised a delayed event; delays are lost on restart: use a durable timer (armTimer) instead`,
      );
    }
    // Other actions (assign, raise, log, custom implementations) have already done their pure work inside
    // transition() or are side effects botflow does not run: machines describe effects, they do not perform them.
  }
  return effects;
}

/** The steps `actions` entered and left in the same event (see StepResult.passed). */
function passedSteps(actions: readonly ExecutedAction[], stoppedAt: string): string[] {
  const entered: string[] = [];
  for (const action of actions)
    if (action.type === ENTERED_ACTION) entered.push(String((action.params as { step?: unknown })?.step));
  if (entered.length < 2) return [];
  // A call step's own entry comes before its first inner step's: the person is in both, not past the first.
  return entered.filter(
    (s, i) =>
      i < entered.length - 1 && !entered[i + 1]!.startsWith(`${s}>`) && !stoppedAt.startsWith(`${s}>`),
  );
}

/** Where a transition stopped, and the actions it handed out on the way. */
type Transition = [AnyMachineSnapshot, ExecutedAction[]];

/** A new session's first transition: the flow's start step entered with `input`. */
function startTransition(flow: FlowDefinition, input: FlowInput): Transition {
  return collecting(flow.machine, (scope) => flow.machine.getInitialSnapshot(scope, input)) as Transition;
}

/** The transition one `event` makes from `from`. */
function eventTransition(flow: FlowDefinition, from: AnyMachineSnapshot, event: unknown): Transition {
  return collecting(flow.machine, (scope) =>
    flow.machine.transition(from as never, event as never, scope),
  ) as Transition;
}

/**
 * The flow's own code failed (`thrown`): the transition of its recovery (its `on_error` route, or the
 * built-in apology and end) from where the session was, and the failure as reported. Rethrows what the
 * flow does not recover from.
 */
function recoverFrom(
  thrown: unknown,
  flow: FlowDefinition,
  cause: StepCause,
  previous: AnyMachineSnapshot | undefined,
  meta: EventMeta,
): { transition: Transition; failure: RecoveredFailure } {
  const error = flowFailureOf(thrown); // also a guard's, which XState rethrows as a plain Error
  const recover = flow.recover;
  if (!recover || !error) throw thrown;
  // Nothing of the failed event stands: the flow handles its failure from where the session was.
  const from =
    previous ?? flow.machine.resolveState(recover.startState((cause as { input: FlowInput }).input) as never);
  const stepKey = error.step ?? (previous ? stepName(previous.value) : undefined);
  const where = stepKey !== undefined ? recover.where?.(stepKey) : undefined;
  const failed = { type: FAILED_EVENT, ...(stepKey !== undefined ? { step: stepKey } : {}), meta };
  let recovery: RecoveredFailure['recovery'] = recover.routes(stepKey) ? 'route' : 'apology';
  let transition: Transition;
  try {
    transition = eventTransition(flow, from, { ...failed, message: error.message });
  } catch {
    // The flow's own route failed as well: only the built-in apology and the end are left.
    recovery = 'apology';
    transition = eventTransition(flow, from, { ...failed, message: error.message, builtin: true });
  }
  const failure: RecoveredFailure = {
    ...(stepKey !== undefined ? { step: stepKey } : {}),
    message: error.message,
    ...(where ? { where } : {}),
    recovery,
  };
  return { transition, failure };
}

/**
 * Runs one step of `flow` for a conversation. Pure: throws StepError/EffectError (or whatever the flow's
 * guards and assigners throw) and leaves persisting the result to the caller.
 */
export function step(
  flow: FlowDefinition,
  state: StepState,
  cause: StepCause,
  options: StepOptions,
): StepResult {
  const revision = state.revision + 1;
  const meta = cause.type === 'start' ? cause.input.meta : cause.event.meta;
  let previous: AnyMachineSnapshot | undefined;
  let transition: Transition;
  let failure: RecoveredFailure | undefined;
  try {
    if (cause.type === 'start') transition = startTransition(flow, cause.input);
    else {
      if (!state.snapshot && !state.machineSnapshot)
        throw new StepError('an event needs a running session; start one first');
      previous = state.machineSnapshot ?? restoreSnapshot(flow, state.snapshot!);
      transition = eventTransition(flow, previous, cause.event);
    }
    // A starting entry's throw comes back as an `error` snapshot (stored, it would swallow what follows).
    const stopped = transition[0];
    if (stopped.status === 'error')
      throw stopped.error ?? new StepError(`flow "${flow.id}" stopped with an error`);
  } catch (thrown) {
    ({ transition, failure } = recoverFrom(thrown, flow, cause, previous, meta));
    if (cause.type === 'start') previous = undefined;
  }
  const [next, actions] = transition;
  const stepChanged = previous === undefined || JSON.stringify(previous.value) !== JSON.stringify(next.value);
  const stepInstance = stepChanged ? revision : state.stepInstance;
  const effects = collectEffects(flow, actions);
  const planned = planEffects(effects, options.conversationKey, {
    meta,
    stepInstance,
    sign: options.sign,
    ...(options.callback ? { callback: options.callback } : {}),
  });
  const calls = options.callback ? pressCalls(planned.calls, options.callback, meta.userId) : planned.calls;
  const snapshot = storeSnapshot(flow.machine, next);
  return {
    snapshot,
    machineSnapshot: next,
    status: next.status === 'done' ? 'done' : 'active',
    revision,
    stepInstance,
    stepChanged,
    idle:
      previous === next &&
      calls.length === 0 &&
      planned.timers.length === 0 &&
      planned.tasks.length === 0 &&
      !planned.tags &&
      planned.unrecognised.length === 0,
    calls,
    timers: planned.timers,
    tasks: planned.tasks,
    rejected: planned.rejected,
    unrecognised: planned.unrecognised,
    ...(planned.tags ? { tags: planned.tags } : {}),
    ...(failure ? { failure } : {}),
    passed: passedSteps(actions, stepName(next.value)),
  };
}

/** The step a state value names: `ask_name`, or `pay>card` inside a called flow. */
export function stepName(value: unknown): string {
  const parts: string[] = [];
  let v = value;
  while (v && typeof v === 'object') {
    const [key, inner] = Object.entries(v as Record<string, unknown>)[0] ?? [];
    if (key === undefined) break;
    parts.push(key);
    v = inner;
  }
  if (typeof v === 'string') parts.push(v);
  return parts.join('>') || '?';
}
