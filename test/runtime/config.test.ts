import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/runtime/config.ts';
import { KEYS } from '../../src/runtime/config-schema.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems.map((p) => (p.where ? `${p.where}: ${p.message}` : p.message));
  }
  throw new Error('expected a ConfigError');
}

const TOKEN = 'token-value-that-must-not-leak-123';

describe('loadConfig', () => {
  it('with nothing configured, runs the embedded default with the sandbox database under .botflow/', () => {
    const config = loadConfig({ cwd: dir, env: {}, argv: [] });
    expect(config.embedded).toBe(true);
    expect(config.token).toBeUndefined();
    expect(config.database.path).toBe(join(dir, '.botflow', 'sandbox.db'));
    expect(config.flows).toEqual({ dir: join(dir, 'flows'), watch: true });
    expect(config.sandbox.port).toBe(3000);
  });

  it('keeps samples of unrecognised texts for the funnel unless funnel.samples is false', () => {
    expect(loadConfig({ cwd: dir, env: {}, argv: [] }).funnel).toEqual({ samples: true });
    const off = loadConfig({ cwd: dir, env: { BOTFLOW_FUNNEL_SAMPLES: 'false' }, argv: [] });
    expect(off.funnel).toEqual({ samples: false });
    writeFileSync(join(dir, 'botflow.config.yaml'), 'funnel:\n  samples: no\n');
    expect(problemsOf(() => loadConfig({ cwd: dir, env: {}, argv: [] })).join('\n')).toMatch(
      /funnel\.samples/,
    );
  });

  it('turns a boolean setting off with --no-<flag>, and guesses a misspelt flag', () => {
    expect(loadConfig({ cwd: dir, env: {}, argv: ['--no-watch'] }).flows.watch).toBe(false);
    expect(loadConfig({ cwd: dir, env: {}, argv: ['--watch'] }).flows.watch).toBe(true);
    expect(problemsOf(() => loadConfig({ cwd: dir, env: {}, argv: ['--wach'] }))[0]).toMatch(
      /^command line: unknown option --wach: did you mean --watch\?/,
    );
  });

  it('refuses a token with whitespace as a configuration problem, without showing it', () => {
    const problems = problemsOf(() =>
      loadConfig({ cwd: dir, env: { BOTFLOW_TOKEN: `${TOKEN}\n` }, argv: [] }),
    );
    expect(problems).toEqual([
      'BOTFLOW_TOKEN: (hidden) is not valid: expected printable ASCII without spaces or line breaks (copy the token again: a trailing newline from a file is the usual cause)',
    ]);
    expect(problems.join()).not.toContain(TOKEN);
  });

  it('applies flags over environment over file over defaults', () => {
    writeFileSync(
      join(dir, 'botflow.config.yaml'),
      'token: from-file\nlog:\n  level: debug\nsandbox:\n  port: 4001\npolling:\n  limit: 10\n',
    );
    const config = loadConfig({
      cwd: dir,
      env: { BOTFLOW_TOKEN: TOKEN, BOTFLOW_PORT: '4002', BOTFLOW_LOG_LEVEL: 'warn' },
      argv: ['--port', '4003'],
    });
    expect(config.token?.reveal()).toBe(TOKEN);
    expect(config.sandbox.port).toBe(4003);
    expect(config.log.level).toBe('warn');
    expect(config.polling.limit).toBe(10);
    expect(config.polling.timeoutSeconds).toBe(30);
    expect(config.sources['sandbox.port']).toEqual({ kind: 'flag', name: '--port' });
    expect(config.baseUrl).toBe('https://platform-api2.max.ru');
  });

  it('reads JSON files and resolves their relative paths against the file, not the working directory', () => {
    mkdirSync(join(dir, 'conf'));
    writeFileSync(
      join(dir, 'conf', 'bot.json'),
      JSON.stringify({ token: TOKEN, database: { path: 'data/bot.db' }, flows: { dir: '../my-flows' } }),
    );
    const config = loadConfig({ cwd: dir, env: { BOTFLOW_CONFIG: 'conf/bot.json' }, argv: [] });
    expect(config.database.path).toBe(join(dir, 'conf', 'data', 'bot.db'));
    expect(config.flows.dir).toBe(join(dir, 'my-flows'));
    expect(config.configFile).toBe(join(dir, 'conf', 'bot.json'));
  });

  it('names the environment variable and the allowed values for a bad mode', () => {
    expect(
      problemsOf(() => loadConfig({ cwd: dir, env: { BOTFLOW_TOKEN: TOKEN, BOTFLOW_MODE: 'pollin' } })),
    ).toEqual(['BOTFLOW_MODE: "pollin" is not one of webhook, polling']);
  });

  it('reports every problem of a file at once, with line and column and a suggestion for typos', () => {
    writeFileSync(
      join(dir, 'botflow.config.yaml'),
      [
        `token: ${TOKEN}`,
        'mode: webhook',
        'webhook:',
        '  url: http://bot.example.com/hook',
        '  secert: abcdef',
        'limits:',
        '  requestsPerSecond: 50',
      ].join('\n'),
    );
    const problems = problemsOf(() => loadConfig({ cwd: dir, env: {} }));
    expect(problems).toContain(
      'botflow.config.yaml:4:8: webhook.url: "http://bot.example.com/hook" is not valid: expected a public https:// URL (the platform refuses plain HTTP; http:// only to 127.0.0.1 with the sandbox)',
    );
    expect(problems).toContain(
      'botflow.config.yaml:5:3: unknown key "webhook.secert"; did you mean "webhook.secret"?',
    );
    expect(problems).toContain(
      'botflow.config.yaml:7:22: limits.requestsPerSecond: 50 is too large: the maximum is 30',
    );
  });

  it('requires a public URL and a secret in webhook mode and says how to set them', () => {
    const problems = problemsOf(() =>
      loadConfig({ cwd: dir, env: { BOTFLOW_TOKEN: TOKEN, BOTFLOW_MODE: 'webhook' } }),
    );
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^webhook\.url: .*set BOTFLOW_WEBHOOK_URL/);
    expect(problems[1]).toMatch(/^webhook\.secret: .*set BOTFLOW_WEBHOOK_SECRET/);
  });

  it('takes the webhook route from the public URL', () => {
    const config = loadConfig({
      cwd: dir,
      env: {
        BOTFLOW_TOKEN: TOKEN,
        BOTFLOW_MODE: 'webhook',
        BOTFLOW_WEBHOOK_URL: 'https://bot.example.com/hooks/max',
        BOTFLOW_WEBHOOK_SECRET: 'abc_DEF-123',
      },
    });
    expect(config.webhook.path).toBe('/hooks/max');
    expect(config.webhook.secret?.reveal()).toBe('abc_DEF-123');
  });

  it('never echoes a secret in a message, even when it is the invalid value', () => {
    const secret = 'has spaces!!';
    const problems = problemsOf(() =>
      loadConfig({
        cwd: dir,
        env: { BOTFLOW_TOKEN: TOKEN, BOTFLOW_MODE: 'webhook', BOTFLOW_WEBHOOK_SECRET: secret },
      }),
    );
    expect(problems.join('\n')).toContain('BOTFLOW_WEBHOOK_SECRET: (hidden) is not valid');
    expect(problems.join('\n')).not.toContain(secret);
  });

  it('checks that CA files exist and hold PEM certificates', () => {
    writeFileSync(join(dir, 'root.cer'), Buffer.from([0x30, 0x82, 0x01, 0x0a]));
    const problems = problemsOf(() =>
      loadConfig({ cwd: dir, env: { BOTFLOW_TOKEN: TOKEN, BOTFLOW_CA_FILES: 'root.cer, missing.pem' } }),
    );
    expect(problems).toEqual([
      `BOTFLOW_CA_FILES: ${join(dir, 'root.cer')} holds no PEM certificate (-----BEGIN CERTIFICATE-----): convert a DER file with \`openssl x509 -inform der -in ca.cer -out ca.pem\``,
      `BOTFLOW_CA_FILES: ${join(dir, 'missing.pem')} does not exist: fix the path in caFiles / BOTFLOW_CA_FILES`,
    ]);
  });

  it('rejects a non-numeric port, an unknown flag and a missing named file', () => {
    expect(problemsOf(() => loadConfig({ cwd: dir, env: { BOTFLOW_PORT: 'eighty' } }))).toEqual([
      'BOTFLOW_PORT: expected a number, got "eighty"',
    ]);
    expect(problemsOf(() => loadConfig({ cwd: dir, env: {}, argv: ['--prot', '1'] }))[0]).toMatch(
      /^command line: unknown option --prot: did you mean --port\?/,
    );
    expect(problemsOf(() => loadConfig({ cwd: dir, env: {}, argv: ['--config', 'nope.yaml'] }))[0]).toMatch(
      /the configuration file nope\.yaml does not exist/,
    );
  });

  it('points at the line of a YAML syntax error', () => {
    writeFileSync(join(dir, 'botflow.config.yaml'), 'mode: polling\nwebhook:\n  url: [unclosed\n');
    expect(problemsOf(() => loadConfig({ cwd: dir, env: {} }))[0]).toMatch(
      /^botflow\.config\.yaml:\d+:\d+: not valid YAML/,
    );
  });

  it('refuses a base URL without a token rather than silently running the sandbox', () => {
    expect(
      problemsOf(() => loadConfig({ cwd: dir, env: { BOTFLOW_BASE_URL: 'https://api.example.com' } })),
    ).toEqual([
      'BOTFLOW_BASE_URL: a base URL is set but no token: set BOTFLOW_TOKEN (or `token` in the file) to use a platform',
    ]);
  });

  it('warns about unknown BOTFLOW_ variables with the likely intended name', () => {
    const config = loadConfig({ cwd: dir, env: { BOTFLOW_TOKNE: 'x' } });
    expect(config.warnings).toEqual([
      'BOTFLOW_TOKNE is not a botflow setting and is ignored; did you mean BOTFLOW_TOKEN?',
    ]);
  });

  it('keeps the token out of JSON and string output of the configuration', () => {
    const config = loadConfig({
      cwd: dir,
      env: { BOTFLOW_TOKEN: TOKEN, BOTFLOW_WEBHOOK_SECRET: 'webhook_secret_value' },
    });
    const text = `${JSON.stringify(config)} ${String(config.token)} ${config.token}`;
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('webhook_secret_value');
    expect(text).toContain('[redacted]');
  });

  it('documents every environment variable and the example file loads cleanly', () => {
    const doc = readFileSync(new URL('../../docs/running.md', import.meta.url), 'utf8');
    for (const name of KEYS.flatMap((k) => k.env)) expect(doc, name).toContain(name);
    const example = new URL('../../botflow.config.example.yaml', import.meta.url).pathname;
    const config = loadConfig({ cwd: dir, env: { BOTFLOW_CONFIG: example, BOTFLOW_TOKEN: TOKEN } });
    expect(config.mode).toBe('webhook');
    expect(config.webhook.path).toBe('/botflow/updates');
  });
});
