/** Hot reload: watches a flows folder and reloads everything after a quiet moment. */
import { existsSync, type FSWatcher, watch } from 'node:fs';
import { join } from 'node:path';
import { type LoadOptions, type LoadResult, loadFlows } from './load.ts';
import type { Problem } from './problems.ts';

function reloadProblem(dir: string, error: unknown): Problem {
  const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return {
    file: dir,
    line: 1,
    col: 1,
    code: 'reload-failed',
    severity: 'error',
    message: `the flows could not be reloaded: ${reason}`,
    hint: 'the last flows that loaded keep running; save the files again to retry',
  };
}

/** A running watch; `close()` stops it. */
export interface FlowWatcher {
  close(): void;
}

/**
 * Calls `onChange` with the freshly loaded flows whenever a flow file or catalog under `dir` changes
 * (debounced by `debounceMs`). The engine keeps serving the previous flows while a change has errors,
 * if it wishes: the result carries both the flows that compiled and the problems.
 */
export function watchFlows(
  dir: string,
  onChange: (result: LoadResult) => void,
  options: LoadOptions & { debounceMs?: number } = {},
): FlowWatcher {
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const fire = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      // A reload that cannot even read the folder (a file or the folder removed during an editor's save)
      // is reported as a problem like any other: the caller keeps the flows it has.
      void loadFlows(dir, options)
        .catch((error: unknown): LoadResult => ({ flows: [], problems: [reloadProblem(dir, error)] }))
        .then((r) => {
          if (!closed) onChange(r);
        });
    }, options.debounceMs ?? 150);
  };
  const watchers: FSWatcher[] = [watch(dir, fire)];
  const locales = join(dir, 'locales');
  if (existsSync(locales)) watchers.push(watch(locales, fire));
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
