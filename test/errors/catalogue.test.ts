/**
 * The error catalogue (src/errors/): codes are unique and used, user-facing error classes are catalogue
 * errors, and they are recognised whichever copy of botflow made them. (Their lines in docs/errors.md are
 * checked with the docs' other hand-kept lists: test/docs/lists.test.ts.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ApiError, NetworkError, UsageError } from '../../src/client/errors.ts';
import { DeadLetterError } from '../../src/client/scheduler/types.ts';
import { TaskError } from '../../src/dispatch/tasks/task.ts';
import { BotflowError, CATALOGUE, isBotflowError } from '../../src/errors/index.ts';
import { ConfigError } from '../../src/runtime/config.ts';
import { KEYS } from '../../src/runtime/config-schema.ts';
import { SandboxControlError } from '../../src/sandbox/control-client.ts';
import { MigrationError } from '../../src/store/migrate.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(repo, path), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** `class X extends Error` left plain on purpose, with why (the rest extend BotflowError). */
const PLAIN: Record<string, string> = {
  'errors/botflow-error.ts BotflowError': 'the base itself',
  'client/scheduler/shared-budget.ts BudgetExhausted':
    "the scheduler turns it into the call's dead letter (reason 'expired'), which is what callers meet",
  'sandbox/errors.ts PlatformError':
    'becomes an HTTP answer of the local platform; callers meet it as ApiError',
  'runtime/config.ts HelpRequested': 'control flow for --help, never reported',
  'testing/parse-helpers.ts Invalid': 'turned into a file:line problem by the transcript loader',
  'testing/parse-transcript.ts InvalidMany': 'turned into file:line problems by the transcript loader',
  'lsp/editor-files.ts EditorPathError': "becomes the playground editor's 403 answer, with its message",
  'lsp/editor-files.ts StaleVersionError': "becomes the playground editor's 409 answer, with its message",
  'lsp/yaml-edit.ts StepEditError': "becomes the playground step form's 422 answer, with its message",
  'sandbox/web/editor/server.ts EditorServerError': "the browser's side of an editor route's error answer",
};

describe('the error catalogue', () => {
  const codes = Object.keys(CATALOGUE);

  it('has unique, well-formed codes, each with a one-line meaning', () => {
    const keys = [...read('src/errors/catalogue.ts').matchAll(/^\s+(BOTFLOW_[A-Z0-9_]+):/gm)].map(
      (m) => m[1],
    );
    expect(keys).toEqual(codes); // a key written twice would silently keep only the last one
    expect(new Set(keys).size).toBe(keys.length);
    for (const [code, meaning] of Object.entries(CATALOGUE)) {
      expect(code).toMatch(/^BOTFLOW_[A-Z][A-Z0-9_]*$/);
      expect(meaning, code).toMatch(/^[^\n]{10,120}$/);
    }
  });

  it('names no code like an environment variable of the configuration', () => {
    const variables = KEYS.flatMap((k) => k.env ?? []);
    expect(variables.length).toBeGreaterThan(0);
    expect(codes.filter((c) => variables.includes(c))).toEqual([]);
  });

  it('is linked from the README', () => {
    expect(read('README.md')).toContain('](docs/errors.md)');
  });

  it('uses every code somewhere in src/', () => {
    const text = sources(join(repo, 'src'))
      .filter((f) => !f.endsWith('catalogue.ts'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    expect(codes.filter((c) => !text.includes(`'${c}'`))).toEqual([]);
  });

  it('makes every error class of src/ a catalogue error, but for the plain ones listed', () => {
    const src = join(repo, 'src');
    const plain = sources(src).flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/class (\w+) extends Error\b/g)].map(
        (m) => `${relative(src, f)} ${m[1]}`,
      ),
    );
    expect(plain.sort()).toEqual(Object.keys(PLAIN).sort());
  });
});

describe('catalogue errors', () => {
  it('carry their code, their class and their own fields', () => {
    const config = new ConfigError([{ key: 'webhook.port', where: '--port', message: 'too large' }]);
    expect(config).toBeInstanceOf(ConfigError);
    expect(config).toBeInstanceOf(BotflowError);
    expect(config).toBeInstanceOf(Error);
    expect([config.name, config.code, config.botflowCode]).toEqual([
      'ConfigError',
      'BOTFLOW_CONFIG_INVALID',
      'BOTFLOW_CONFIG_INVALID',
    ]);
    expect(isBotflowError(config, 'BOTFLOW_CONFIG_INVALID')).toBe(true);
    expect(isBotflowError(config, 'BOTFLOW_CLI_USAGE')).toBe(false);
    expect(isBotflowError(new Error('plain'))).toBe(false);
    const cause = new Error('disk full');
    expect(new MigrationError('migration failed', { cause }).cause).toBe(cause);
  });

  it('keep the own code of the classes that had one; the catalogue code is botflowCode', () => {
    const api = new ApiError({
      operation: 'sendMessage',
      status: 401,
      code: 'verify.token',
      platformMessage: 'Invalid access_token',
      body: '{}',
    });
    expect([api.code, api.botflowCode, api.status]).toEqual(['verify.token', 'BOTFLOW_API_ERROR', 401]);
    const net = new NetworkError({
      operation: 'getMe',
      sent: false,
      code: 'ECONNREFUSED',
      message: 'x',
      cause: null,
    });
    expect([net.code, net.botflowCode, net.sent]).toEqual(['ECONNREFUSED', 'BOTFLOW_NETWORK_ERROR', false]);
    const task = new TaskError('sold_out', 'no seats left', { retryable: true });
    expect([task.code, task.botflowCode, task.retryable]).toEqual(['sold_out', 'BOTFLOW_TASK_FAILED', true]);
    const control = new SandboxControlError(404, 'not.found', 'no such user', '/_sandbox/users/9');
    expect([control.code, control.botflowCode]).toEqual(['not.found', 'BOTFLOW_SANDBOX_CONTROL']);
    expect(new UsageError([{ field: 'text', message: 'too long' }]).code).toBe('BOTFLOW_API_USAGE');
    const dead = new DeadLetterError('closed', 'sendMessage', 1, undefined, 'closed');
    expect([dead.name, dead.code]).toEqual(['DeadLetterError', 'BOTFLOW_DEAD_LETTER']);
  });

  it('are recognised whichever copy of botflow made them (the brand)', () => {
    // What another copy's BotflowError looks like to this one: a different class, the same Symbol.for brand.
    const other = Object.assign(new Error('from another copy'), { code: 'BOTFLOW_FLOW_REBUILD' });
    Object.defineProperty(other, Symbol.for('botflow.BotflowError'), { value: true });
    Object.assign(other, { botflowCode: 'BOTFLOW_FLOW_REBUILD' });
    expect(other instanceof BotflowError).toBe(true);
    expect(isBotflowError(other, 'BOTFLOW_FLOW_REBUILD')).toBe(true);
    // A subclass keeps the ordinary check: a ConfigError is not a MigrationError.
    expect(new ConfigError([]) instanceof MigrationError).toBe(false);
  });
});
