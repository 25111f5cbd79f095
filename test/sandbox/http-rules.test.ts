/**
 * Issue 18, item 8: the platform's HTTP rules. A wrong verb on an existing path is 405 (not 404), and
 * the token is accepted only in the Authorization header: `?access_token=` is refused.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { raw } from './helpers.ts';

let h: SandboxClient;
beforeEach(async () => {
  h = await sandboxClient();
});
afterEach(() => h.close());

describe('HTTP verbs and authentication as the spec says', () => {
  it('answers 405 with the allowed methods to a wrong verb on an existing path', async () => {
    const patch = await raw(h.sandbox, 'PATCH', '/messages', { text: 'x' });
    expect(patch.status).toBe(405);
    expect(patch.body.code).toBe('method.not.allowed');
    expect(patch.headers.get('allow')).toContain('POST');
    const del = await raw(h.sandbox, 'DELETE', '/me');
    expect(del.status).toBe(405);
    const onParam = await raw(h.sandbox, 'POST', '/chats/123/pin');
    expect(onParam.status).toBe(405);
    expect(onParam.headers.get('allow')).toContain('PUT');
  });

  it('still answers 404 for a path that does not exist at all', async () => {
    const res = await raw(h.sandbox, 'GET', '/no/such/thing');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not.found');
  });

  it('refuses the token in the query, even the right one, and accepts it in the header', async () => {
    const inQuery = await raw(h.sandbox, 'GET', `/me?access_token=${h.sandbox.token}`, undefined, undefined);
    expect(inQuery.status).toBe(401);
    expect(inQuery.body).toEqual({ code: 'verify.token', message: 'Invalid access_token' });
    const both = await raw(h.sandbox, 'GET', `/me?access_token=${h.sandbox.token}`);
    expect(both.status).toBe(401);
    expect((await raw(h.sandbox, 'GET', '/me')).status).toBe(200);
  });
});
