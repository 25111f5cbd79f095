/**
 * Transcripts' classification stubs: `- say: "I'd like a table"` with `intent: book` (or `intent: { name:
 * book, confidence: 0.4, slots: { guests: 4 } }`, or `intent: null` for none) is what a registered
 * classifier answers for that text, whichever task it is; no model is asked. The built-in keyword classifier
 * needs no stub: it answers the same for the same text, so a transcript just types the words.
 */
import type { TaskDefinition } from '../dispatch/tasks/task.ts';
import { ClassifierInput, type ClassifierResult } from '../flows/schema-intents.ts';
import { fail, isObj, keysOf, type Path } from './parse-helpers.ts';
import type { Transcript } from './transcript.ts';

const EXAMPLE = 'e.g. intent: book, or intent: { name: book, confidence: 0.4, slots: { guests: 4 } }';

/** Reads a turn's `intent:`. */
export function intentStubOf(v: unknown, at: Path): ClassifierResult {
  if (v === null) return { intent: null, confidence: 0 };
  if (typeof v === 'string') return { intent: v, confidence: 1 };
  if (!isObj(v)) fail(at, 'intent is a name, null, or { name, confidence, slots }', EXAMPLE);
  keysOf(v, at, ['name', 'confidence', 'slots']);
  if (v.name !== null && typeof v.name !== 'string')
    fail([...at, 'name'], 'name is the intent (or null)', EXAMPLE);
  const confidence = v.confidence ?? 1;
  if (typeof confidence !== 'number' || confidence < 0 || confidence > 1)
    fail([...at, 'confidence'], 'confidence is a number from 0 to 1', EXAMPLE);
  if (v.slots !== undefined && !isObj(v.slots)) fail([...at, 'slots'], 'slots is a mapping', EXAMPLE);
  return {
    intent: (v.name as string | null | undefined) ?? null,
    confidence,
    ...(v.slots ? { slots: v.slots as Record<string, unknown> } : {}),
  };
}

/** The transcript's classification stubs by the text said. */
export function classificationsOf(t: Pick<Transcript, 'turns'>): Map<string, ClassifierResult> {
  const out = new Map<string, ClassifierResult>();
  for (const turn of t.turns)
    if (turn.intent && turn.action.kind === 'say') out.set(turn.action.text, turn.intent);
  return out;
}

/**
 * The tasks with the stubs put first: a task started with a classifier's input whose text the transcript
 * stubs answers with the stub (its own code, or its `tasks:` stub, is not run).
 */
export function withClassifications(
  tasks: Record<string, TaskDefinition>,
  stubs: ReadonlyMap<string, ClassifierResult>,
): Record<string, TaskDefinition> {
  if (!stubs.size) return tasks;
  const wrap = (definition: TaskDefinition | undefined): TaskDefinition | undefined => {
    if (!definition) return definition;
    const run = typeof definition === 'function' ? definition : definition.run;
    const stubbed: typeof run = (input, ctx) => {
      const c = ClassifierInput.safeParse(input);
      const stub = c.success ? stubs.get(c.data.text) : undefined;
      return stub ?? run(input, ctx);
    };
    return typeof definition === 'function' ? stubbed : { ...definition, run: stubbed };
  };
  return new Proxy(tasks, {
    getOwnPropertyDescriptor(target, name) {
      const d = Reflect.getOwnPropertyDescriptor(target, name);
      return d && typeof name === 'string' ? { ...d, value: wrap(d.value) } : d;
    },
    get(target, name) {
      const v = Reflect.get(target, name);
      return typeof name === 'string' ? wrap(v as TaskDefinition | undefined) : v;
    },
  });
}
