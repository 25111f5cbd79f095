import { describe, expect, it } from 'vitest';
import { KEYS, OTHER_ENV } from '../../src/runtime/config-schema.ts';
import { clearBotflowEnv } from '../support/clean-env.ts';

// The CLI tests once read the caller's BOTFLOW_DATABASE_URL: with it exported, `migrate`, `stats`,
// `outbox` and `flows plan` opened the shell's PostgreSQL instead of the test's SQLite file.
describe("the tests' environment", () => {
  it("holds none of the variables botflow reads, whatever the caller's shell exports", () => {
    const read = [...KEYS.flatMap((key) => key.env), ...OTHER_ENV];
    expect(read).toContain('BOTFLOW_DATABASE_URL');
    expect(read.filter((name) => process.env[name] !== undefined)).toEqual([]);
  });

  it("clears every BOTFLOW_ name but the tests' own knobs", () => {
    const env = {
      BOTFLOW_DATABASE_URL: 'postgres://127.0.0.1:5432/test',
      BOTFLOW_TOKEN: '1:x',
      BOTFLOW_TEST_POSTGRES_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
      BOTFLOW_UPDATE_SCREENSHOT: '1',
      PATH: '/usr/bin',
    };
    expect(clearBotflowEnv(env).sort()).toEqual(['BOTFLOW_DATABASE_URL', 'BOTFLOW_TOKEN']);
    expect(Object.keys(env).sort()).toEqual([
      'BOTFLOW_TEST_POSTGRES_URL',
      'BOTFLOW_UPDATE_SCREENSHOT',
      'PATH',
    ]);
  });
});
