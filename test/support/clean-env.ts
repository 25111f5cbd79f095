/**
 * Vitest global setup: the suite must not depend on the caller's shell. A developer who exports
 * BOTFLOW_DATABASE_URL (or BOTFLOW_TOKEN, BOTFLOW_MODE, …) for their own bot would otherwise have every
 * CLI test read it: `migrate`, `stats`, `outbox` and `flows plan` then open their PostgreSQL instead of the
 * test's SQLite file. Global setup runs in the main vitest process before the workers are forked, so
 * the workers (and the child processes the tests start) inherit the cleaned environment.
 *
 * Kept: the knobs the tests themselves read (BOTFLOW_TEST_*, and the few older names listed below).
 */
export const TEST_KNOBS: readonly string[] = [
  'BOTFLOW_UPDATE_SCREENSHOT',
  'BOTFLOW_RESTARTS',
  'BOTFLOW_CLUSTER_WAIT_MS',
  'BOTFLOW_CRASH_SEED',
  'BOTFLOW_FAULT_SEED',
  'BOTFLOW_SMOKE_NODES',
];

/** Removes every BOTFLOW_* variable but the tests' own knobs from `env`; returns the names removed. */
export function clearBotflowEnv(env: NodeJS.ProcessEnv): string[] {
  const removed = Object.keys(env).filter(
    (name) => name.startsWith('BOTFLOW_') && !name.startsWith('BOTFLOW_TEST_') && !TEST_KNOBS.includes(name),
  );
  for (const name of removed) delete env[name];
  return removed;
}

export default function setup(): void {
  const removed = clearBotflowEnv(process.env);
  if (removed.length > 0)
    console.warn(`tests run without the shell's ${removed.join(', ')} (the suite sets what it needs itself)`);
}
