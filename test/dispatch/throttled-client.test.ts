import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { ApiError } from '../../src/client/errors.ts';
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import { throttledClient } from '../../src/client/scheduler/throttled-client.ts';
import { PollingError, startPolling } from '../../src/intake/polling.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/start.ts';
import { tempDatabase } from '../intake/helpers.ts';
import { eventually } from '../support/eventually.ts';

let sandbox: Sandbox;
let api: BotApi;
let scheduler: Scheduler;
let env: ReturnType<typeof tempDatabase>;

beforeEach(async () => {
  sandbox = await startSandbox();
  api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
  scheduler = new Scheduler({ api });
  env = tempDatabase();
});
afterEach(async () => {
  scheduler.close();
  await api.close();
  await sandbox.close();
  env.cleanup();
});

describe('throttledClient: BotApi-shaped calls through the scheduler', () => {
  it('long polling through it counts every poll in the scheduler, and updates reach the inbox', async () => {
    const submitted: string[] = [];
    const counting = {
      submit: ((job) => {
        submitted.push(job.op);
        return scheduler.submit(job);
      }) as Scheduler['submit'],
    };
    const polling = startPolling({ api: throttledClient(counting), db: env.db, timeout: 1 });
    await eventually('the first marker', () => polling.marker !== undefined, 20_000);
    const person = await sandbox.control.createUser({ first_name: 'Оля' });
    await sandbox.control.startBot(person.user_id);
    await sandbox.control.sendMessage(person.user_id, 'dialog', { text: 'первое' });
    await eventually('both updates in the inbox', () => env.inbox.nextPending(100).length === 2, 20_000);
    await polling.stop();
    const seen = sandbox.requestLog.list().map((r) => r.op);
    expect(seen.filter((op) => op === 'getUpdates').length).toBeGreaterThan(0);
    // Every request the sandbox saw (the subscription check and each poll) was submitted to the scheduler
    // (one more poll may have been submitted and cancelled by stop() before it reached the sandbox).
    for (const op of new Set(seen)) {
      expect(submitted.filter((o) => o === op).length).toBeGreaterThanOrEqual(
        seen.filter((o) => o === op).length,
      );
    }
    expect(scheduler.metrics().dispatched).toBeGreaterThanOrEqual(seen.length);
  });

  it('a dead-lettered call rejects with the platform error, so polling still explains a webhook block', async () => {
    await api.subscribe({ url: 'http://127.0.0.1:9/hook' });
    const client = throttledClient(scheduler);
    await expect(client.getUpdates({ timeout: 0 })).rejects.toBeInstanceOf(ApiError);
    const polling = startPolling({ api: client, db: env.db, timeout: 1 });
    await expect(polling.done).rejects.toBeInstanceOf(PollingError);
    await expect(polling.done).rejects.toThrow(/127\.0\.0\.1:9\/hook/);
  });
});
