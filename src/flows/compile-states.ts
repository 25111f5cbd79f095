/**
 * The states of a flow's steps (compile.ts): one state per step, each built by its kind (kinds/<kind>/),
 * over the transitions every waiting step shares (state-parts.ts). A called flow runs as nested states.
 */
import { onEventOf } from './event-steps.ts';
import { kindOf } from './kinds/registry.ts';
import type { FlowFile, Step } from './schema.ts';
import { act, type Compiling, type StateConfig, sharedTransitions, type Waiting } from './state-parts.ts';

export {
  act,
  COMMANDS_KEY,
  type Compiling,
  guard,
  routeTransition,
  type StateConfig,
} from './state-parts.ts';

/** A step with the flow's `defaults:` filled in, as its kind reads them. */
export function withDefaults(f: FlowFile, step: Step): Step {
  return kindOf(step).withDefaults?.(step, f) ?? step;
}

/** The states of the steps of `f`, keyed `prefix` + id (a called flow's steps under its caller's). */
export function buildStates(
  k: Compiling,
  f: FlowFile,
  prefix: string,
  chain: string[],
  parent: string[] = [],
): Record<string, StateConfig> {
  const topLevel = chain.length === 1;
  const states: Record<string, StateConfig> = {};
  for (const [id, raw] of Object.entries(f.steps)) {
    const step = withDefaults(f, raw);
    const key = `${prefix}${id}`;
    k.steps.set(key, { key, id, flow: f, step, text: k.rendererOf(f), format: f.format ?? 'html', topLevel });
    k.paths.set(key, [...parent, id]);
    if (('render' in step && step.render === 'edit') || f.defaults?.render === 'edit') k.usesEdit = true;
    states[id] = stateFor(k, k.paths.get(key)!.join('>'), key, step, prefix, chain);
  }
  return states;
}

function stateFor(k: Compiling, path: string, key: string, step: Step, prefix: string, chain: string[]) {
  const s = { step: key };
  const takesEvents = Object.keys(onEventOf(step)).length > 0;
  const enter = [act('enter', { ...s, path }), ...(takesEvents ? [act('replayQueued', s)] : [])];
  let waiting: Waiting | undefined;
  const kind = kindOf(step);
  return kind.state(step, {
    k,
    key,
    s,
    prefix,
    chain,
    enter,
    waiting: () => {
      waiting ??= { leave: [act('leave', s)], ...sharedTransitions(k, key, step, kind) };
      return waiting;
    },
  });
}
