/**
 * `npm start` and `npx botflow run` run botflow under `sh -c`. npm passes SIGTERM (and SIGINT) on to that
 * shell only; the shell dies of it without passing it on, npm exits, and the bot would run on, orphaned
 * (Ctrl+C works only because the terminal signals the whole process group). So a botflow that npm started
 * watches its parent process and, once it is gone, shuts down as on SIGTERM. Under a process manager or in
 * a container, run `node node_modules/.bin/botflow run` (or `exec` it) instead: docs/running.md.
 */

/** How often the parent is looked at (a change of `process.ppid` is all it costs). */
export const PARENT_WATCH_MS = 500;

/**
 * When `env` says npm started this process (`npm_lifecycle_event`), calls `onGone` once its parent process
 * is gone (the process is handed to another parent). Returns the function that stops watching. The timer
 * never keeps the process alive.
 */
export function watchParent(
  env: NodeJS.ProcessEnv,
  onGone: (parent: number) => void,
  everyMs = PARENT_WATCH_MS,
): () => void {
  if (!env.npm_lifecycle_event) return () => {};
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone(parent);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
