/** ensureSubscription and deleteSubscription on the sandbox; `botflow webhook`: webhook-command.e2e.test.ts. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { deleteSubscription, ensureSubscription, SubscriptionError } from '../../src/intake/subscriptions.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/start.ts';

let sandbox: Sandbox;
let api: BotApi;
beforeEach(async () => {
  sandbox = await startSandbox({ limits: false });
  api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
});
afterEach(async () => {
  await api.close();
  await sandbox.close();
});

describe('ensureSubscription', () => {
  it('creates a missing subscription, leaves a matching one alone, and updates changed types', async () => {
    const url = 'http://127.0.0.1:9/hook';
    expect(await ensureSubscription(api, { url, types: ['message_created'] })).toEqual({
      action: 'created',
      others: [],
    });
    expect((await ensureSubscription(api, { url, types: ['message_created'] })).action).toBe('unchanged');
    expect((await ensureSubscription(api, { url, types: ['message_callback'] })).action).toBe('updated');
    const [subscription] = (await api.getSubscriptions()).subscriptions;
    expect(subscription?.update_types).toEqual(['message_callback']);
    // The platform never shows secrets: with one, the subscription is always sent again.
    expect(
      (await ensureSubscription(api, { url, secret: 'abcde_123', types: ['message_callback'] })).action,
    ).toBe('updated');
  });

  it('reports subscriptions for other URLs', async () => {
    await api.subscribe({ url: 'http://127.0.0.1:9/old' });
    const result = await ensureSubscription(api, { url: 'http://127.0.0.1:9/new' });
    expect(result.others.map((s) => s.url)).toEqual(['http://127.0.0.1:9/old']);
  });

  it('says clearly when there is nothing to delete', async () => {
    await expect(deleteSubscription(api, 'http://127.0.0.1:9/none')).rejects.toThrow(SubscriptionError);
  });
});
