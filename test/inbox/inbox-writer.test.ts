/** Group commit: entries submitted in one turn of the event loop are committed together, each acked after it. */
import { describe, expect, it } from 'vitest';
import { InboxWriter } from '../../src/inbox/inbox-writer.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import type { AppendResult, InboxEntry } from '../../src/store/inbox.ts';
import { tempDatabase } from '../intake/helpers.ts';

const entry = (i: number): InboxEntry =>
  updateEntry(
    JSON.stringify({ update_type: 'message_created', message: { body: { mid: `mid.${i}`, text: `№${i}` } } }),
  );

describe('InboxWriter', () => {
  it('commits what arrives in one turn as one batch, and resolves each entry after its commit', async () => {
    const env = tempDatabase();
    const batches: number[] = [];
    const writer = new InboxWriter({
      inbox: env.inbox,
      onAccepted: (batch) => batches.push(batch.ids.length),
    });
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => writer.submit(entry(i))));
    expect(results.every((r) => r.inserted)).toBe(true);
    expect(batches).toEqual([300]);
    expect(env.inbox.counts().pending).toBe(300);
    env.cleanup();
  });

  it('commits at maxBatch without waiting for the end of the turn; through `commit`, one batch at a time', async () => {
    const sizes: number[] = [];
    let inFlight = 0;
    let most = 0;
    const writer = new InboxWriter({
      maxBatch: 100,
      commit: async (entries: InboxEntry[]): Promise<AppendResult[]> => {
        inFlight++;
        most = Math.max(most, inFlight);
        sizes.push(entries.length);
        await new Promise((resolve) => setImmediate(resolve)); // a commit takes a turn of the event loop
        inFlight--;
        return entries.map((_, i) => ({ id: i + 1, inserted: true }));
      },
    });
    await Promise.all(Array.from({ length: 250 }, (_, i) => writer.submit(entry(i))));
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(250);
    expect(sizes.length).toBeLessThan(250);
    expect(most).toBe(1);
  });
});
