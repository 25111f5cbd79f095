import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The default project (`npm test`): unit and integration tests on real SQLite files and real HTTP,
// fast enough to run on every change. Slow end-to-end suites are named *.e2e.test.ts and run with
// `npm run test:e2e` (vitest.e2e.config.ts); the browser tests with `npm run test:browser`.
export default defineConfig({
  test: {
    globalSetup: [
      'test/support/clean-env.ts',
      'test/support/postgres-setup.ts',
      'test/support/memory-tmp.ts',
    ],
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.e2e.test.ts', 'test/browser/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Test files share their worker's module cache (each file still gets fresh state from its own hooks):
    // importing the sources once per worker instead of once per file takes a third off the run.
    isolate: false,
    // Vitest's default is one worker fewer than the cores: ONE on a 2-core CI machine, where every wait
    // of a test (PostgreSQL, HTTP, a child process) then left both cores idle. Two files at a time there
    // (the same 433 tests, load 14-18: 153 s with one worker, 121 s with two); as before on larger machines.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
