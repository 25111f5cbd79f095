// The long poll's share of the request budget: once the window is well used, a poll starts at most every
// POLL_SPACING_MS (every second with a second of sends waiting); with the window used less it starts at once.
import { describe, expect, it, vi } from 'vitest';
import {
  answersWaitingForRoom,
  POLL_LONG_BACKLOG,
  POLL_LONG_SPACING_MS,
  POLL_RESERVE,
  POLL_SPACING_MS,
  pollSpacingMs,
  spacedPolls,
} from '../../src/runtime/poll-spacing.ts';

/** The scheduler's metrics with `total` calls waiting and `used` of the window's 28 starts taken. */
const metrics = (total: number, used: number) => ({
  queued: { total, byPriority: {} as never, unscoped: 0, chatsWithWork: total },
  globalWindowUsed: used,
  globalWindowLimit: 28,
});

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
    const spaced = spacedPolls(api, () => (backlog ? 100 : 0));
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
    const spaced = spacedPolls(api, () => 10_000);
    await spaced.getUpdates({});
    const stop = new AbortController();
    const waiting = spaced.getUpdates({}, { signal: stop.signal });
    stop.abort();
    await expect(waiting).rejects.toBeDefined();
  });
});

describe('answersWaitingForRoom', () => {
  it('counts the waiting calls only while the window is all but full', () => {
    // Thirty chats each wait for their own 2 a second, the budget half used: polls go at once.
    expect(answersWaitingForRoom(metrics(30, 14))).toBe(0);
    expect(answersWaitingForRoom(metrics(30, 24))).toBe(0);
    // The window has fewer than four starts left: the answers wait for room, and polls make room for them.
    expect(answersWaitingForRoom(metrics(30, 25))).toBe(30);
    expect(answersWaitingForRoom(metrics(12, 28))).toBe(12);
  });
});

describe('pollSpacingMs', () => {
  it('spaces polls once the window is well used, whatever waits (issue 36)', () => {
    // A quiet bot: polls go at once.
    expect(pollSpacingMs(metrics(0, 10))).toBe(0);
    expect(pollSpacingMs(metrics(5, 28 - POLL_RESERVE - 1))).toBe(0);
    // 14 answers a second and the polls that fetch them fill the window before any answer waits: spaced.
    expect(pollSpacingMs(metrics(0, 28 - POLL_RESERVE))).toBe(POLL_SPACING_MS);
    expect(pollSpacingMs(metrics(12, 27))).toBe(POLL_SPACING_MS);
    // A second of answers waiting for room: once a second.
    expect(pollSpacingMs(metrics(POLL_LONG_BACKLOG, 27))).toBe(POLL_LONG_SPACING_MS);
    // As many waiting only for their own chats, the window half used: at once.
    expect(pollSpacingMs(metrics(POLL_LONG_BACKLOG, 14))).toBe(0);
  });
});

describe('the default spacing', () => {
  it('with a second of sends waiting, leaves all but one start a second to the answers (issue 36)', async () => {
    vi.useFakeTimers();
    try {
      const { api, starts } = fakeApi();
      let waiting = POLL_LONG_BACKLOG;
      const spaced = spacedPolls(api, () => pollSpacingMs(metrics(waiting, 27)));
      let on = true;
      const polls = (async () => {
        while (on) await spaced.getUpdates({});
      })();
      await vi.advanceTimersByTimeAsync(4500);
      // One at once, then one a second: 5 in the first 4.5 s (four a second would have been 19).
      expect(starts.filter((t) => t - starts[0]! < 4500)).toHaveLength(5);
      // A short queue: every 200 ms (a person's message is fetched sooner than the queue drains).
      waiting = 1;
      await vi.advanceTimersByTimeAsync(POLL_LONG_SPACING_MS);
      const before = starts.length;
      await vi.advanceTimersByTimeAsync(1000);
      expect(starts.length - before).toBe(1000 / POLL_SPACING_MS);
      on = false;
      await vi.advanceTimersByTimeAsync(POLL_LONG_SPACING_MS);
      await polls;
    } finally {
      vi.useRealTimers();
    }
  });
});
