// The long poll's share of the request budget: while answers wait, a poll starts at most every spacingMs;
// with nothing waiting it starts at once.
import { describe, expect, it, vi } from 'vitest';
import { POLL_SPACING_MS, spacedPolls } from '../../src/runtime/poll-spacing.ts';

function fakeApi() {
  const starts: number[] = [];
  return {
    starts,
    api: {
      getSubscriptions: async () => ({ subscriptions: [] }),
      getUpdates: async () => {
        starts.push(Date.now());
        return { updates: [], marker: 1, undecodable: [] };
      },
    } as never,
  };
}

describe('spacedPolls', () => {
  it('spaces polls while answers wait, and not otherwise', async () => {
    const { api, starts } = fakeApi();
    let backlog = true;
    const spaced = spacedPolls(api, () => backlog, 100);
    for (let i = 0; i < 3; i++) await spaced.getUpdates({});
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(95);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(95);
    backlog = false;
    const before = Date.now();
    for (let i = 0; i < 3; i++) await spaced.getUpdates({});
    expect(Date.now() - before).toBeLessThan(60);
  });

  it('gives up its wait when the poll is aborted', async () => {
    const { api } = fakeApi();
    const spaced = spacedPolls(api, () => true, 10_000);
    await spaced.getUpdates({});
    const stop = new AbortController();
    const waiting = spaced.getUpdates({}, { signal: stop.signal });
    stop.abort();
    await expect(waiting).rejects.toBeDefined();
  });
});

describe('the default spacing', () => {
  it('leaves all but one start a second to the answers while they wait (issue 36)', async () => {
    vi.useFakeTimers();
    try {
      const { api, starts } = fakeApi();
      const spaced = spacedPolls(api, () => true);
      let on = true;
      const polls = (async () => {
        while (on) await spaced.getUpdates({});
      })();
      await vi.advanceTimersByTimeAsync(4500);
      on = false;
      await vi.advanceTimersByTimeAsync(POLL_SPACING_MS);
      await polls;
      // One at once, then one a second: 5 in the first 4.5 s (four a second would have been 19).
      expect(starts.filter((t) => t - starts[0]! < 4500)).toHaveLength(5);
    } finally {
      vi.useRealTimers();
    }
  });
});
