import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/runtime/logger.ts';
import { Secret } from '../../src/runtime/secret.ts';
import { runShutdown } from '../../src/runtime/shutdown.ts';

const TOKEN = 'tok-9f8e7d6c5b4a-secret';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, destination };
}

describe('createLogger', () => {
  it('keeps the token out of every line, whichever way it is passed', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'info', secrets: [TOKEN], destination });
    logger.info({ token: TOKEN, config: { token: new Secret(TOKEN) } }, 'by field');
    logger.info({ headers: { authorization: TOKEN } }, 'as a header');
    logger.warn({ url: `https://api.example.com/me?access_token=${TOKEN}` }, 'inside a URL');
    logger.error({ err: new Error(`request with ${TOKEN} failed`) }, `in the message ${TOKEN}`);
    logger.child({ component: 'api' }).info({ nested: { deeper: { value: `"${TOKEN}"` } } }, 'in a child');
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      expect(line).not.toContain(TOKEN);
      expect(JSON.parse(line).msg).toBeTypeOf('string');
    }
    expect(lines.join('\n')).toContain('[redacted]');
  });

  it('writes JSON lines with a level name and respects the configured level', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'warn', destination });
    logger.info('hidden');
    logger.warn({ step: 'x' }, 'shown');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'shown', step: 'x' }),
    ]);
  });
});

describe('runShutdown', () => {
  it('runs steps in order, bounds a hanging step by the deadline and still closes the database', async () => {
    const order: string[] = [];
    const result = await runShutdown(
      [
        { name: 'stop intake', run: () => void order.push('intake') },
        { name: 'hangs', run: () => new Promise(() => order.push('hang')) },
        { name: 'after deadline', run: () => void order.push('never') },
        { name: 'close database', always: true, run: () => void order.push('db') },
      ],
      { deadline: Date.now() + 300 },
    );
    expect(order).toEqual(['intake', 'hang', 'db']);
    expect(result.clean).toBe(false);
    expect(result.steps.map((s) => s.outcome)).toEqual(['done', 'timed out', 'skipped', 'done']);
  });

  it('reports a failing step and carries on', async () => {
    const result = await runShutdown(
      [
        {
          name: 'drain',
          run: () => {
            throw new Error('boom');
          },
        },
        { name: 'close', run: () => undefined },
      ],
      { deadline: Date.now() + 5000 },
    );
    expect(result.steps).toMatchObject([
      { name: 'drain', outcome: 'failed', error: 'boom' },
      { name: 'close', outcome: 'done' },
    ]);
  });
});

describe('createLogger().addSecret', () => {
  it('scrubs a secret learned after creation from later lines', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'info', destination });
    logger.addSecret('late-secret-value');
    logger.child({ component: 'x' }).info(`calling with late-secret-value`);
    expect(lines[0]).not.toContain('late-secret-value');
  });
});
