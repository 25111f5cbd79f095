import { describe, expect, it } from 'vitest';
import { SlidingWindowLog } from '../../src/client/scheduler/sliding-window.ts';

describe('the global sliding-window log', () => {
  it('lets `limit` starts through per window and no more', () => {
    const log = new SlidingWindowLog(2, 1000);
    log.settle(log.start(10), 10);
    log.settle(log.start(20), 20);
    expect(log.nextFreeAt(30)).toBe(1010);
    log.settle(log.start(1010), 1010);
    expect(log.nextFreeAt(1010)).toBe(1020);
  });

  it('keeps the bound of a later start when an early call answers after its slot was taken', () => {
    // Two calls a window: A hangs (an upload), B answers quickly; C and D start once A's bound has
    // passed, each with a bound of its own; then A's answer comes, late.
    const log = new SlidingWindowLog(2, 1000);
    const a = log.start(5000);
    const b = log.start(5000);
    log.settle(b, 50);
    expect(log.nextFreeAt(60)).toBe(6000);
    const c = log.start(11_000); // takes A's slot
    expect(log.nextFreeAt(6000)).toBe(6000);
    log.start(11_000); // D takes B's slot
    log.settle(a, 6500); // A answers: it says nothing of C, which may arrive as late as 11,000
    // E must wait until C is known to have arrived a window ago (it counted from A's answer: 7,500).
    expect(log.nextFreeAt(6600)).toBe(12_000);
    log.settle(c, 7000);
    expect(log.nextFreeAt(7000)).toBe(8000);
  });
});
