/** Hot reload survives a flow file that cannot be read in the middle of a save. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../../src/flows/load.ts';
import { watchFlows } from '../../src/flows/watch.ts';
import { eventually } from '../support/eventually.ts';

describe('watchFlows', () => {
  it('reports a reload that cannot read a flow file as a problem, not an unhandled rejection', async () => {
    const root = mkdtempSync(join(tmpdir(), 'botflow-watch-'));
    const dir = join(root, 'flows');
    mkdirSync(dir);
    writeFileSync(join(dir, 'help.flow.yaml'), 'flow: help\nstart: bye\nsteps:\n  bye:\n    type: end\n');
    const results: LoadResult[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const watcher = watchFlows(dir, (r) => results.push(r), { debounceMs: 20 });
    try {
      mkdirSync(join(dir, 'half-saved.flow.yaml')); // listed as a flow file, but it cannot be read
      await eventually('a reload result', () => results.length > 0, 10_000);
      expect(results[0]?.flows).toEqual([]);
      expect(results[0]?.problems[0]).toMatchObject({
        severity: 'error',
        message: expect.stringMatching(/^the flows could not be reloaded: EISDIR/),
      });
      expect(unhandled).toEqual([]);
    } finally {
      watcher.close();
      process.off('unhandledRejection', onUnhandled);
      rmSync(root, { recursive: true, force: true });
    }
  });
});
