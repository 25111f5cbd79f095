/**
 * Which flow starts when a conversation has no running session: the flow whose trigger matches the event
 * most specifically (an exact deep-link payload beats a pattern, a pattern beats "any bot_started"; a
 * keyword beats "any message"), ties going to the flow registered first.
 */
import type { FlowDefinition, FlowInput, FlowTrigger } from '../step/contract.ts';

type Candidate = FlowInput['trigger'];

/** Patterns see at most this much of a text: the platform's messages are shorter; a flood is cut. */
const MAX_PATTERN_INPUT = 4_096;

function matches(pattern: string | RegExp, text: string): boolean {
  if (typeof pattern === 'string') return pattern.trim().toLowerCase() === text.trim().toLowerCase();
  pattern.lastIndex = 0;
  return pattern.test(text.length > MAX_PATTERN_INPUT ? text.slice(0, MAX_PATTERN_INPUT) : text);
}

/** How specifically `trigger` matches `candidate`: 0 = not at all, higher = more specific. */
export function triggerScore(trigger: FlowTrigger, candidate: Candidate): number {
  switch (trigger.kind) {
    case 'bot_started':
      if (candidate.kind !== 'bot_started') return 0;
      if (trigger.payload === undefined) return 1;
      if (candidate.payload === undefined) return 0;
      if (typeof trigger.payload === 'string') return trigger.payload === candidate.payload ? 3 : 0;
      return matches(trigger.payload, candidate.payload) ? 2 : 0;
    case 'command':
      return candidate.kind === 'command' && trigger.name.toLowerCase() === candidate.name.toLowerCase()
        ? 3
        : 0;
    case 'keyword':
      if (candidate.kind !== 'message' || candidate.text === undefined) return 0;
      return matches(trigger.pattern, candidate.text) ? (typeof trigger.pattern === 'string' ? 3 : 2) : 0;
    case 'button':
      return candidate.kind === 'button' && trigger.button === candidate.button ? 3 : 0;
    case 'event':
      return candidate.kind === 'event' && trigger.name === candidate.name ? 3 : 0;
    case 'any_message':
      return candidate.kind === 'message' ? 1 : 0;
    case 'fallback':
      // Below every other trigger: it starts only what nothing else would.
      return candidate.kind === 'call' || candidate.kind === 'event' ? 0 : 0.5;
    default:
      return 0;
  }
}

/** The flow to start for `candidate`, or undefined when no trigger matches. */
export function findFlowToStart(
  flows: readonly FlowDefinition[],
  candidate: Candidate,
): FlowDefinition | undefined {
  let best: FlowDefinition | undefined;
  let bestScore = 0;
  for (const flow of flows) {
    for (const trigger of flow.triggers) {
      const score = triggerScore(trigger, candidate);
      if (score > bestScore) {
        best = flow;
        bestScore = score;
      }
    }
  }
  return best;
}
