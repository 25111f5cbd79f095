/** What starts a flow file's flow: its `triggers:` as the engine's FlowTriggers. */
import type { FlowTrigger } from '../engine/step/contract.ts';
import { flowRegex } from './safe-regex.ts';
import type { FlowFile } from './schema.ts';

/** `/regex/flags` in a flow file becomes a RegExp; anything else stays a string. */
function patternOf(text: string): string | RegExp {
  const m = /^\/(.+)\/([a-z]*)$/.exec(text);
  return m ? flowRegex(m[1]!, m[2]) : text;
}

export function triggersOf(flow: FlowFile): FlowTrigger[] {
  return (flow.triggers ?? []).map((t): FlowTrigger => {
    if (t.bot_started !== undefined) {
      const payload = t.bot_started === true ? undefined : t.bot_started.payload;
      return payload === undefined
        ? { kind: 'bot_started' }
        : { kind: 'bot_started', payload: patternOf(payload) };
    }
    if (t.command !== undefined) return { kind: 'command', name: t.command.replace(/^\//, '') };
    if (t.keyword !== undefined) return { kind: 'keyword', pattern: patternOf(t.keyword) };
    if (t.event !== undefined) return { kind: 'event', name: t.event };
    return t.fallback ? { kind: 'fallback' } : { kind: 'any_message' };
  });
}
