/**
 * Transcripts' task stubs as registry tasks. A stub answers with its result, fails with its code (retryable
 * or not), throws an unexpected error, or times out (as the runner's deadline would). Tasks the transcript
 * marks `real` run the registry's own code instead (their HTTP faked by `http:`, see http-fakes.ts).
 */
import { type TaskDefinition, TaskError } from '../dispatch/tasks/task.ts';
import { partialMatch } from './match.ts';
import type { TaskStub, Transcript } from './transcript.ts';

/** The tasks a transcript's `tasks:` block describes; `names` are the tasks flows may start. */
export function stubTasks(
  stubs: Readonly<Record<string, TaskStub[]>> | undefined,
): Record<string, TaskDefinition> {
  const out: Record<string, TaskDefinition> = {};
  for (const [name, list] of Object.entries(stubs ?? {})) {
    const used = new Set<TaskStub>();
    out[name] = (input: unknown) => {
      const last = list.filter((s) => !s.input).at(-1);
      const stub =
        list.find((s) => s.input && partialMatch(s.input, input)) ??
        list.find((s) => !s.input && !used.has(s)) ??
        last;
      if (!stub) {
        throw new TaskError(
          'no_stub',
          `no stub of task "${name}" matches the input ${JSON.stringify(input)}: add one without input, or with this input`,
        );
      }
      used.add(stub);
      if (stub.timeout)
        throw new TaskError('timeout', `task "${name}" timed out (stubbed)`, { retryable: true });
      if (stub.error)
        throw new TaskError(stub.error.code, stub.error.message ?? stub.error.code, {
          retryable: stub.error.retryable ?? false,
        });
      // Plain Error on purpose: the transcript asked for a task that throws a bare error (a bug in the task).
      if (stub.throw !== undefined) throw new Error(stub.throw);
      return stub.result ?? null;
    };
  }
  return out;
}

/**
 * The tasks a transcript runs: the registry's own code for those it marks real (`tasks: real`: all), its
 * stubs for the others, and the `no_stub` failure for any other.
 */
export function transcriptTasks(
  t: Pick<Transcript, 'tasks' | 'realTasks'>,
  registryTasks: Readonly<Record<string, TaskDefinition>> = {},
): Record<string, TaskDefinition> {
  const stubs = stubTasks(t.tasks);
  if (t.realTasks === true) return { ...registryTasks, ...stubs };
  const real = Object.fromEntries(
    (t.realTasks ?? []).map((name) => [name, registryTasks[name] ?? missingReal(name, registryTasks)]),
  );
  return withMissingStubs({ ...stubs, ...real });
}

const missingReal =
  (name: string, registry: Readonly<Record<string, TaskDefinition>>): TaskDefinition =>
  () => {
    throw new TaskError(
      'unknown_task',
      `the transcript runs task "${name}" for real, and the registry has no such task (it has: ${Object.keys(registry).join(', ') || 'none'})`,
    );
  };

/** Tasks a transcript starts without stubbing them fail with this code and a hint. */
export function withMissingStubs(tasks: Record<string, TaskDefinition>): Record<string, TaskDefinition> {
  const missing = (name: string) => () => {
    throw new TaskError(
      'no_stub',
      `the transcript does not stub task "${name}": add tasks: { ${name}: { result: … } } (or run its own code: tasks: { ${name}: real }, with http: fakes)`,
    );
  };
  return new Proxy(tasks, {
    getOwnPropertyDescriptor(target, name) {
      if (typeof name !== 'string' || Object.hasOwn(target, name))
        return Reflect.getOwnPropertyDescriptor(target, name);
      return { value: missing(name), configurable: true, enumerable: false, writable: false };
    },
    get(target, name) {
      if (typeof name !== 'string' || Object.hasOwn(target, name)) return Reflect.get(target, name);
      return missing(name);
    },
  });
}
