/**
 * Records which steps and transitions the dialogs exercised. The flows' named actions (`enter`, `route`,
 * `accept`, `reject`, `remind`) are wrapped so that resolving them inside XState's pure `transition()`
 * also tells the recorder; nothing else about the machine changes.
 */
import type { AnyStateMachine } from 'xstate';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { edgeKey, type FlowEdge, handlerLabel } from './coverage-graph.ts';

const WATCHED = [
  'enter',
  'route',
  'accept',
  'reject',
  'remind',
  'taskDone',
  'taskError',
  'intentRoute',
  // A project's own kind of step (defineStepKind): its answer's exit, its refusal.
  'kindGo',
  'kindRefuse',
];

/** What the dialogs reached, per flow. */
export class CoverageRecorder {
  readonly steps = new Map<string, Set<string>>();
  readonly edges = new Map<string, Set<string>>();
  #pending: { flowId: string; from: string; label: string } | undefined;
  #lastEnter: { flowId: string; step: string } | undefined;

  /** Marks a step as reached (also used for `start_at`). */
  visit(_conversationKey: string, flowId: string, step: string): void {
    this.#set(this.steps, flowId).add(step);
  }

  #set(map: Map<string, Set<string>>, flowId: string): Set<string> {
    const set = map.get(flowId) ?? new Set<string>();
    map.set(flowId, set);
    return set;
  }

  #edge(flowId: string, e: FlowEdge) {
    this.#set(this.edges, flowId).add(edgeKey(e));
  }

  /** Called for every watched action resolved by a flow machine. */
  action(flowId: string, type: string, params: Record<string, unknown>): void {
    const s = String(params.step ?? '');
    if (type === 'enter') {
      this.visit('', flowId, s);
      if (this.#pending?.flowId === flowId) {
        this.#edge(flowId, { from: this.#pending.from, label: this.#pending.label, to: s });
      } else if (this.#lastEnter?.flowId === flowId) {
        this.#edge(flowId, { from: this.#lastEnter.step, label: 'next', to: s });
      }
      this.#pending = undefined;
      this.#lastEnter = { flowId, step: s };
      return;
    }
    this.flush();
    const label = handlerLabel(type, params);
    // Handlers of the whole flow (global commands) name the flow or `#commands` instead of a step.
    const from = s === flowId || s.startsWith('#') || params.global === true ? '*' : s;
    if (label) this.#pending = { flowId, from, label };
  }

  /** Ends the current event: a handler that entered no step stayed where it was. */
  flush(): void {
    const p = this.#pending;
    if (p) this.#edge(p.flowId, { from: p.from, label: p.label });
    this.#pending = undefined;
    this.#lastEnter = undefined;
  }

  /** The flow with its machine's named actions reporting to this recorder. */
  instrument(flow: FlowDefinition): FlowDefinition {
    const machine = flow.machine as AnyStateMachine & {
      implementations: { actions: Record<string, unknown> };
    };
    const wrapped: Record<string, unknown> = {};
    for (const name of WATCHED) {
      const original = machine.implementations.actions[name] as
        | (((...a: unknown[]) => unknown) & { resolve?: (...a: unknown[]) => unknown })
        | undefined;
      if (typeof original?.resolve !== 'function') continue;
      const resolve = original.resolve;
      // XState resolves built-in actions as resolve(actorScope, snapshot, args, params, extra).
      wrapped[name] = Object.assign((...a: unknown[]) => original(...a), original, {
        resolve: (...a: unknown[]) => {
          this.action(flow.id, name, (a[3] ?? {}) as Record<string, unknown>);
          return resolve(...a);
        },
      });
    }
    return { ...flow, machine: machine.provide({ actions: wrapped as never }) };
  }
}
