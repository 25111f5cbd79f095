import { defineConfig } from 'vitest/config';

// The end-to-end project (`npm run test:e2e`): child processes, SIGKILLs, real rate-limit windows,
// the packed package installed in an empty folder. CI runs it after `npm test`.
export default defineConfig({
  test: {
    globalSetup: ['test/support/clean-env.ts', 'test/support/postgres-setup.ts'],
    include: ['test/**/*.e2e.test.ts'],
    exclude: ['test/browser/**', 'node_modules/**'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
