/**
 * The flows an engine can run, by id and version. Sessions are pinned to the version they started on, so
 * the set keeps every version it is given; new sessions start on the latest version of a flow (the
 * one added last). Flows are checked when added: XState `after` delays, `invoke` and `spawn` would not
 * survive a restart, so they are refused with a message saying what to use instead.
 */
import type { AnyStateMachine } from 'xstate';
import { BotflowError } from '../../errors/index.ts';
import type { FlowDefinition } from './contract.ts';

/** A flow that botflow cannot run as given. */
export class FlowDefinitionError extends BotflowError {
  override name = 'FlowDefinitionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_FLOW_DEFINITION', message, options);
  }
}

/** A session is pinned to a flow version this process did not load. */
export class MissingFlowVersionError extends BotflowError {
  override name = 'MissingFlowVersionError';
  constructor(
    readonly flowId: string,
    readonly version: string,
    loaded: readonly string[],
  ) {
    super(
      'BOTFLOW_FLOW_VERSION_MISSING',
      loaded.length === 0
        ? `flow "${flowId}" is not loaded: load it (any version with a migrate() for ${version}) or end the session`
        : `flow "${flowId}" version ${version} is not loaded (loaded: ${loaded.join(', ')}), and no loaded version ` +
            `migrates it: load that version too, give the newest a migrate() for it, or end the session`,
    );
  }
}

interface StateNodeLike {
  id: string;
  after: unknown[];
  invoke: unknown[];
  states: Record<string, StateNodeLike>;
}

function checkMachine(flowId: string, machine: AnyStateMachine): void {
  const visit = (node: StateNodeLike) => {
    if (node.after.length > 0) {
      throw new FlowDefinitionError(
        `flow "${flowId}": state "${node.id}" uses an XState "after" delay, which is lost when a session is ` +
          'restored: arm a durable timer instead (armTimer(name, ms) on entry, then `on: { timer: … }`)',
      );
    }
    if (node.invoke.length > 0) {
      throw new FlowDefinitionError(
        `flow "${flowId}": state "${node.id}" invokes an actor; botflow machines do no I/O and cannot invoke ` +
          'or spawn: emit an effect with a ref and handle the effect.done event instead',
      );
    }
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root as unknown as StateNodeLike);
}

function checkDefinition(flow: FlowDefinition): void {
  const problems: string[] = [];
  if (typeof flow?.id !== 'string' || flow.id === '') problems.push('id must be a non-empty string');
  if (typeof flow?.version !== 'string' || flow.version === '')
    problems.push('version must be a non-empty string');
  if (!flow?.machine || typeof (flow.machine as { transition?: unknown }).transition !== 'function') {
    problems.push('machine must be an XState machine (createMachine or setup().createMachine)');
  }
  if (!Array.isArray(flow?.triggers)) problems.push('triggers must be an array (it may be empty)');
  if (typeof flow?.stalePolicy !== 'function')
    problems.push('stalePolicy must be a function of the state value');
  if (problems.length > 0) {
    throw new FlowDefinitionError(`flow "${String(flow?.id)}": ${problems.join('; ')}`);
  }
  checkMachine(flow.id, flow.machine);
}

const keyOf = (flowId: string, version: string) => `${flowId}\u0000${version}`;

/** Every flow version an engine can run. */
export class FlowSet {
  readonly #versions = new Map<string, Map<string, FlowDefinition>>();
  readonly #latest = new Map<string, FlowDefinition>();
  readonly #order: string[] = [];
  readonly #listeners = new Set<(flow: FlowDefinition) => void>();
  /** Versions added with addPinned() (and not added again since): the latest's migrate() goes first. */
  readonly #restored = new Set<string>();

  constructor(flows: Iterable<FlowDefinition> = []) {
    for (const flow of flows) this.add(flow);
  }

  /** Adds a flow version (checked); it becomes the version new sessions of that flow start on. */
  add(flow: FlowDefinition): this {
    checkDefinition(flow);
    let versions = this.#versions.get(flow.id);
    if (!versions) {
      versions = new Map();
      this.#versions.set(flow.id, versions);
      this.#order.push(flow.id);
    }
    versions.set(flow.version, flow);
    this.#restored.delete(keyOf(flow.id, flow.version));
    this.#latest.set(flow.id, flow);
    for (const listener of this.#listeners) listener(flow);
    return this;
  }

  /**
   * Adds an older version that running sessions are pinned to (rebuilt after a restart), without making
   * it the version new sessions start on: `latest()` and `current()` do not change, and a flow that has
   * no latest version stays unable to start. Sessions on it move to the latest version when that one's
   * `migrate()` maps them (as they would if this version were missing), else they go on here.
   */
  addPinned(flow: FlowDefinition): this {
    checkDefinition(flow);
    if (this.get(flow.id, flow.version)) return this;
    let versions = this.#versions.get(flow.id);
    if (!versions) {
      versions = new Map();
      this.#versions.set(flow.id, versions);
    }
    versions.set(flow.version, flow);
    this.#restored.add(keyOf(flow.id, flow.version));
    for (const listener of this.#listeners) listener(flow);
    return this;
  }

  /** Calls `listener` with every flow version added from now on (hot reload); returns the unsubscribe. */
  onAdd(listener: (flow: FlowDefinition) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The version new sessions of `flowId` start on. */
  latest(flowId: string): FlowDefinition | undefined {
    return this.#latest.get(flowId);
  }

  /** One exact version. */
  get(flowId: string, version: string): FlowDefinition | undefined {
    return this.#versions.get(flowId)?.get(version);
  }

  /** The latest version of every flow, in the order flows were first added (trigger precedence). */
  current(): FlowDefinition[] {
    return this.#order.flatMap((id) => this.#latest.get(id) ?? []);
  }

  /** Every loaded version. */
  all(): FlowDefinition[] {
    return [...this.#versions.values()].flatMap((v) => [...v.values()]);
  }

  /**
   * The version a session pinned to `flowId`@`version` runs on as it is (what `resolve()` gives without
   * trying a migration), or undefined when `resolve()` has to decide.
   */
  pinned(flowId: string, version: string): FlowDefinition | undefined {
    return this.#restored.has(keyOf(flowId, version)) ? undefined : this.get(flowId, version);
  }

  /**
   * The flow to run a session pinned to `flowId`@`version` on, with its snapshot: the pinned version when
   * loaded, else the latest version if its `migrate()` maps the snapshot. A version added with
   * addPinned() is used only when the latest version does not migrate the snapshot (after a restart, a
   * `migrate:` block still moves sessions as it did before versions were rebuilt). Throws
   * MissingFlowVersionError.
   */
  resolve(
    flowId: string,
    version: string,
    snapshot: unknown,
  ): { flow: FlowDefinition; snapshot: unknown; migrated: boolean } {
    const pinned = this.get(flowId, version);
    if (pinned && !this.#restored.has(keyOf(flowId, version)))
      return { flow: pinned, snapshot, migrated: false };
    const latest = this.latest(flowId);
    const migrated = latest?.migrate?.(version, structuredClone(snapshot));
    if (latest && migrated !== undefined) return { flow: latest, snapshot: migrated, migrated: true };
    if (pinned) return { flow: pinned, snapshot, migrated: false };
    throw new MissingFlowVersionError(flowId, version, [...(this.#versions.get(flowId)?.keys() ?? [])]);
  }
}
