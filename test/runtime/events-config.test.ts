/** Issue 29: the `events` settings: keys are secrets (never echoed, scrubbed), names and origins checked. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, secretsOf } from '../../src/runtime/config.ts';

const cwd = '/nonexistent-botflow-cwd';

describe('events settings', () => {
  it('are off by default, on with keys or mini-app events', () => {
    const off = loadConfig({ env: {}, cwd });
    expect(off.events).toMatchObject({ enabled: false, path: '/events', maxBody: 81_920, port: 8080 });
    const on = loadConfig({
      env: {
        BOTFLOW_EVENTS_KEYS: 'key_one_0123456789abcdef,key_two_0123456789abcdef',
        BOTFLOW_EVENTS_MINI_APP: 'order_form,table_pick',
        BOTFLOW_EVENTS_MINI_APP_ORIGINS: 'https://shop.example.com',
      },
      cwd,
    });
    expect(on.events.enabled).toBe(true);
    expect(on.events.keys.map((k) => k.reveal())).toEqual([
      'key_one_0123456789abcdef',
      'key_two_0123456789abcdef',
    ]);
    expect(on.events.miniApp).toEqual(['order_form', 'table_pick']);
    expect(JSON.stringify(on)).not.toContain('key_one_0123456789abcdef');
    expect(secretsOf(on)).toEqual(
      expect.arrayContaining(['key_one_0123456789abcdef', 'key_two_0123456789abcdef']),
    );
  });

  it('refuse a short key without echoing it, a bad event name and an origin with a path', () => {
    let error: unknown;
    try {
      loadConfig({
        env: {
          BOTFLOW_EVENTS_KEYS: 'short-key',
          BOTFLOW_EVENTS_MINI_APP: '1st',
          BOTFLOW_EVENTS_MINI_APP_ORIGINS: 'https://shop.example.com/app',
        },
        cwd,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('BOTFLOW_EVENTS_KEYS');
    expect(message).toContain('at least 16 characters');
    expect(message).not.toContain('short-key');
    expect(message).toMatch(/BOTFLOW_EVENTS_MINI_APP: .*event name/);
    expect(message).toMatch(/BOTFLOW_EVENTS_MINI_APP_ORIGINS: .*origin/);
  });
});
