/**
 * A `call` step at run time: entering sets its `with:` parameters (constants, or "{{var}}" copying a value,
 * not its text); when the called flow ends, its `return:` value is saved under `save_as`.
 */
import {
  type Args,
  type Enqueue,
  type FlowContext,
  flowAction,
  type StepParams,
} from '../../machine-context.ts';
import { readVar } from '../../vars.ts';
import type { KindParts, RunKit } from '../contract.ts';
import type { CallStep } from './schema.ts';

/** Entering: the `with:` parameters, before the step's own `set:`. */
export function enterCall(s: CallStep, context: FlowContext, enqueue: Enqueue): FlowContext {
  if (!s.with) return context;
  const params = Object.fromEntries(
    Object.entries(s.with).map(([k, v]) => {
      const m = typeof v === 'string' ? /^\{\{\s*([\w.]+)\s*\}\}$/.exec(v) : null;
      return [k, m ? readVar(context.vars, m[1]!) : v];
    }),
  );
  const c = { ...context, vars: { ...context.vars, ...params } };
  enqueue.assign({ vars: c.vars });
  return c;
}

/** The called flow ended: what it gave back is saved under `save_as`. */
export function callParts(k: RunKit): KindParts {
  return {
    actions: {
      called: flowAction(({ context, enqueue }: Args, p: StepParams) => {
        const s = k.entry(p.step).step as CallStep;
        if (s.save_as)
          enqueue.assign({ vars: { ...context.vars, [s.save_as]: context.ret ?? null }, ret: null });
      }),
    },
  };
}
