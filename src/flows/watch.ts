/** Hot reload: watches a flows folder and reloads everything after a quiet moment. */
import { existsSync, type FSWatcher, watch } from 'node:fs';
import { join } from 'node:path';
import { type LoadOptions, type LoadResult, loadFlows } from './load.ts';

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
      void loadFlows(dir, options).then((r) => {
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
