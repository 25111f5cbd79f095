/**
 * Regular expressions written in flow files (keyword triggers, `regex` rules, `matches` conditions) run
 * on every message anyone sends, so one pattern that backtracks catastrophically (`^(a+)+$`) lets a
 * single 30-character message stall the whole bot for seconds. Three guards:
 * - a pattern V8's linear-time engine can run is compiled for it (the `l` flag: no backtracking at all);
 * - any other pattern is refused when it nests quantifiers (star height above 1, checked by fastify's
 *   safe-regex2), by `botflow check` at its file:line:col and when the flows load;
 * - the text a pattern runs on is cut at MAX_REGEX_INPUT characters (the platform's messages are
 *   shorter), which bounds the polynomial cases too.
 */
import { setFlagsFromString } from 'node:v8';
import isSafe from 'safe-regex2';
import { BotflowError } from '../errors/index.ts';

/** Longer texts are tested on their first this many characters. */
export const MAX_REGEX_INPUT = 4_096;

// Makes the `l` flag (V8's linear-time engine) available; it changes nothing else.
setFlagsFromString('--enable-experimental-regexp-engine');

/** A compiled flow-file pattern, or why it cannot be used. */
export type FlowRegex = { regex: RegExp; linear: boolean } | { error: string };

/** Compiles `source` with `flags` for use on people's messages. */
export function compileFlowRegex(source: string, flags = ''): FlowRegex {
  let regex: RegExp;
  try {
    regex = new RegExp(source, flags);
  } catch (error) {
    return { error: `is not a valid regular expression: ${(error as Error).message}` };
  }
  try {
    return { regex: new RegExp(source, `${flags}l`), linear: true };
  } catch {
    // Case-insensitive, Unicode-aware or look-around patterns need the backtracking engine.
  }
  if (!isSafe(regex)) {
    return {
      error:
        'may backtrack catastrophically (a quantifier inside a repeated group, like (a+)+): one crafted ' +
        'message could stall the bot; rewrite it without nesting repetitions',
    };
  }
  return { regex, linear: false };
}

/** Tests `text` (cut at MAX_REGEX_INPUT characters) against a compiled pattern. */
export function testFlowRegex(regex: RegExp, text: string): boolean {
  regex.lastIndex = 0;
  return regex.test(text.length > MAX_REGEX_INPUT ? text.slice(0, MAX_REGEX_INPUT) : text);
}

const compiledCache = new Map<string, RegExp>();

/** The compiled pattern (kept for reuse), throwing with the reason when it cannot be used (checked flows never do). */
export function flowRegex(source: string, flags = ''): RegExp {
  const key = `${flags}/${source}`;
  const cached = compiledCache.get(key);
  if (cached) return cached;
  const compiled = compileFlowRegex(source, flags);
  if ('error' in compiled)
    throw new BotflowError('BOTFLOW_FLOW_REGEX', `/${source}/${flags} ${compiled.error}`);
  if (compiledCache.size > 1_000) compiledCache.clear();
  compiledCache.set(key, compiled.regex);
  return compiled.regex;
}
