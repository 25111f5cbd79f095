/** Secrets never reach a printed line: known values, and credentials in any URL. */
import { describe, expect, it } from 'vitest';
import { runBot } from '../../src/cli/run-command.ts';
import { scrub } from '../../src/runtime/logger.ts';

describe('scrub', () => {
  it('redacts user info and secret-looking query parameters in URLs, and known values anywhere', () => {
    expect(scrub('GET https://bot:hunter22@api.example/x?a=1&access_token=abc123&token=t0k#f')).toBe(
      'GET https://[redacted]@api.example/x?a=1&access_token=[redacted]&token=[redacted]#f',
    );
    expect(scrub('the secret is s3cr3t-value', ['s3cr3t-value'])).toBe('the secret is [redacted]');
    expect(scrub('http://127.0.0.1:3000/?user_id=5')).toBe('http://127.0.0.1:3000/?user_id=5');
  });
});

describe('botflow run', () => {
  it('prints a failed self-check without the token placed in the base URL', async () => {
    const printed: string[] = [];
    const code = await runBot([], {
      env: {
        BOTFLOW_TOKEN: 'run-token-1234',
        BOTFLOW_BASE_URL: 'http://127.0.0.1:9/api?access_token=run-token-1234',
        BOTFLOW_LOG_LEVEL: 'silent',
      },
      cwd: process.cwd(),
      print: (line) => printed.push(line),
      loadParts: async () => (await import('../../src/runtime/default-parts.ts')).defaultParts(),
    });
    expect(code).toBe(3);
    expect(printed.join('\n')).toContain('self-check failed');
    expect(printed.join('\n')).not.toContain('run-token-1234');
    expect(printed.join('\n')).toContain('access_token=[redacted]');
  }, 30_000);
});
