// One chain of lease ticks, and none after the process left (issue 36: 2 of 3 graceful stops took a lease
// time to be taken over). Lease news heard while a process joins (the others release its share at once)
// used to arm a second timer beside the one `begin` arms; `halt` stopped one of them, and the other ticked
// after `leave`: its heartbeat put the stopped process back among the members, so the survivors left its
// share free until that heartbeat lapsed, 3 s. The lease port here is a fake that counts the calls, on
// Vitest's fake timers: the ticks are counted, not timed.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { coordination } from '../../src/engine/coordination.ts';
import { SessionCache } from '../../src/engine/lane/session-cache.ts';
import type { EngineStore } from '../../src/store/ports/engine.ts';
import type { LeaseNews, LeasePort } from '../../src/store/ports/leases.ts';

const TICK_MS = 1000;

function fakeStore() {
  const calls = { heartbeats: 0, left: 0, goneChecks: 0 };
  let hear: ((news: LeaseNews) => void) | undefined;
  let joining = true;
  const leases: LeasePort = {
    async heartbeat() {
      calls.heartbeats++;
      // The others hear this process join and release its share: the news comes while it still joins.
      if (joining) hear?.({ member: 'other', kind: 'released' });
      return Date.now();
    },
    liveMembers: async () => [{ id: 'me', startedAt: 0, info: {} }],
    acquire: async (_owner, names) => [...names],
    owner: async () => null,
    release: async () => {},
    async leave() {
      calls.left++;
    },
    async goneHolding() {
      calls.goneChecks++;
      return false;
    },
  };
  const store = {
    leases,
    async listen(h: { leases?(news: LeaseNews): void }) {
      hear = h.leases;
      return { close: async () => {}, session: 4242 };
    },
  } as unknown as EngineStore;
  return { store, calls, joined: () => (joining = false) };
}

function coordinationOver(store: EngineStore) {
  const run = { running: false, joined: false, graced: false, lastLoopAt: 0 };
  const c = coordination({
    store,
    member: 'me',
    options: { tickMs: TICK_MS, leaseMs: 3 * TICK_MS },
    run,
    now: () => Date.now(),
    cache: new SessionCache(10),
    dispatcher: () => undefined,
    runner: () => ({ setPartitions: () => {} }) as never,
    timers: () => ({ arm: () => {}, applyGrace: () => {} }),
    process: () => {},
  });
  return { c, run };
}

describe('lease ticks', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('run one at a time, one per tick, even with news heard while joining, and none after leaving', async () => {
    const { store, calls, joined } = fakeStore();
    const { c, run } = coordinationOver(store);
    run.running = true;
    await c.join();
    joined();
    c.begin();
    // The heard news asks for a tick at once; from then on one per tick.
    await vi.advanceTimersByTimeAsync(10);
    const afterStart = calls.heartbeats;
    await vi.advanceTimersByTimeAsync(10 * TICK_MS);
    expect(calls.heartbeats - afterStart).toBe(10);

    run.running = false;
    await c.halt();
    await c.leave(true);
    expect(calls.left).toBe(1);
    const atLeave = calls.heartbeats;
    const checksAtLeave = calls.goneChecks;
    await vi.advanceTimersByTimeAsync(10 * TICK_MS);
    expect(calls.heartbeats).toBe(atLeave);
    expect(calls.goneChecks).toBe(checksAtLeave);
  });

  it('tell the listening session with the heartbeat, so that the others see this process die', async () => {
    const { store } = fakeStore();
    const infos: Record<string, unknown>[] = [];
    const heartbeat = store.leases!.heartbeat.bind(store.leases);
    store.leases!.heartbeat = (member, ttl, info) => {
      infos.push(info);
      return heartbeat(member, ttl, info);
    };
    const { c, run } = coordinationOver(store);
    run.running = true;
    await c.join();
    expect(infos[0]).toMatchObject({ session: 4242, pid: process.pid });
    run.running = false;
    await c.halt();
  });
});
