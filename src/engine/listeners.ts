/** The engine's listeners (`engine.on('step' | 'effect' | 'task' | 'error', …)`). */
import type { Logger } from 'pino';
import type { DispatchOutcome } from '../dispatch/dispatcher.ts';
import type { TaskOutcome } from '../dispatch/tasks/runner.ts';
import type { EventOutcome } from './lane/outcome.ts';

/** What observers can listen to with `engine.on()`. */
export interface EngineEvents {
  /** An inbox event was handled (done or ignored). */
  step: EventOutcome;
  /** An outbox call was settled. */
  effect: DispatchOutcome;
  /** A task attempt ended: done, failed for good, to be retried, or cancelled. */
  task: TaskOutcome;
  /** An inbox event failed; its session kept its last good snapshot. */
  error: EventOutcome;
  /** An external event was stored (`engine.events.send`): its inbox row's id, kind and payload (JSON). */
  accepted: { id: number; kind: string; conversationKey: string; payload: string; at: number };
}

/** Who hears the engine's events; a listener that throws is logged and the others still hear. */
export class EngineListeners {
  readonly #sets: { [K in keyof EngineEvents]: Set<(p: EngineEvents[K]) => void> } = {
    step: new Set(),
    effect: new Set(),
    task: new Set(),
    error: new Set(),
    accepted: new Set(),
  };
  constructor(private readonly logger: Logger | undefined) {}

  readonly emit = <K extends keyof EngineEvents>(event: K, payload: EngineEvents[K]): void => {
    for (const listener of this.#sets[event]) {
      try {
        listener(payload);
      } catch (error) {
        this.logger?.error({ err: error, event }, 'engine listener threw');
      }
    }
  };

  readonly on = <K extends keyof EngineEvents>(
    event: K,
    listener: (p: EngineEvents[K]) => void,
  ): (() => void) => {
    this.#sets[event].add(listener);
    return () => this.#sets[event].delete(listener);
  };
}
