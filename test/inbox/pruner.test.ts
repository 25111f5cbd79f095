import { afterEach, beforeEach, expect, it } from 'vitest';
import { startInboxPruner } from '../../src/inbox/pruner.ts';
import { EngineInbox } from '../../src/store/engine-inbox.ts';
import { tempDatabase } from '../intake/helpers.ts';
import { eventually } from '../support/eventually.ts';

let env: ReturnType<typeof tempDatabase>;
beforeEach(() => {
  env = tempDatabase();
});
afterEach(() => env.cleanup());

it('prunes settled rows past the retention, at start and then periodically, and keeps pending ones', async () => {
  let clock = 10_000;
  const [done, pending] = env.inbox.append([
    { dedupeKey: 'a', payload: '{}', receivedAt: 1_000 },
    { dedupeKey: 'b', payload: '{}', receivedAt: 1_000 },
  ]);
  new EngineInbox(env.db).settle(done!.id!, 'done', null, null, Date.now());
  const stop = startInboxPruner({ db: env.db, retentionMs: 5_000, intervalMs: 20, now: () => clock });
  try {
    expect(env.inbox.findByDedupeKey('a')).toBeUndefined();
    expect(env.inbox.get(pending!.id!)?.status).toBe('pending');
    const [later] = env.inbox.append([{ dedupeKey: 'c', payload: '{}', receivedAt: 9_000 }]);
    new EngineInbox(env.db).settle(later!.id!, 'ignored', null, null, Date.now());
    clock = 20_000;
    await eventually('the periodic prune', () => env.inbox.findByDedupeKey('c') === undefined, 20_000);
    expect(env.inbox.counts()).toEqual({ pending: 1, done: 0, failed: 0, ignored: 0 });
  } finally {
    stop();
  }
});
