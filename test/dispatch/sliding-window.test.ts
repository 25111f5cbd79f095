import { describe, expect, it } from 'vitest';
import { SlidingWindowLog } from '../../src/client/scheduler/sliding-window.ts';

describe('the global sliding-window log', () => {
  it('lets `limit` starts through per window and no more', () => {
    const log = new SlidingWindowLog(2, 1000);
    log.settle(log.start(10, 10), 10);
    log.settle(log.start(20, 20), 20);
    expect(log.nextFreeAt(30)).toBe(1010);
    log.settle(log.start(1010, 1010), 1010);
    expect(log.nextFreeAt(1010)).toBe(1020);
  });

  it('waits for the earliest bound to leave the window, and ignores the answer of a start it dropped', () => {
    // Two calls a window. A hangs (an upload), B answers at once: C may start when B leaves the window,
    // A still holding one place; the next waits for the earlier of A and C.
    const log = new SlidingWindowLog(2, 1000);
    const a = log.start(5000, 0);
    const b = log.start(5000, 0);
    log.settle(b, 50);
    expect(log.nextFreeAt(60)).toBe(1050);
    const c = log.start(3050, 1050);
    expect(log.nextFreeAt(1060)).toBe(4050);
    log.settle(c, 1100);
    expect(log.nextFreeAt(1110)).toBe(2100);
    // A holds its place until its bound (5,000) leaves the window, whatever starts beside it.
    log.settle(log.start(4100, 2100), 2150);
    const e = log.start(5150, 3150);
    expect(log.nextFreeAt(3160)).toBe(6000);
    log.settle(e, 3200);
    log.start(6200, 4200);
    expect(log.nextFreeAt(4300)).toBe(6000);
    // At 6,000 G starts and A is dropped; A's late answer changes nothing.
    log.start(8000, 6000);
    log.settle(a, 6500);
    expect(log.nextFreeAt(6500)).toBe(7200);
  });

  it('lets a call held open at the platform (a long poll) hold up only its own place in the window', () => {
    // Three a window. A long poll starts at 0 (it may arrive as late as 2,000 and answers at 5,000); two
    // sends start beside it and answer at once. The next send waits for the earliest send to leave the
    // window (1,010), not for the poll, which only one of the three places waits for.
    const log = new SlidingWindowLog(3, 1000);
    const poll = log.start(2000, 0);
    log.settle(log.start(2010, 10), 15);
    log.settle(log.start(2020, 20), 25);
    expect(log.nextFreeAt(30)).toBe(1015);
    log.settle(log.start(3015, 1015), 1020);
    expect(log.nextFreeAt(1020)).toBe(1025);
    log.settle(log.start(3025, 1025), 1030);
    // Now the poll and the two latest sends count: the next waits for the earlier send.
    expect(log.nextFreeAt(1030)).toBe(2020);
    log.settle(poll, 5000); // its answer: later than its bound, which stands
    expect(log.nextFreeAt(1030)).toBe(2020);
  });

  it('never lets more than `limit` arrivals into any window, whatever the answers and their order', () => {
    // Random calls: each arrives somewhere between its start and its answer (or its bound, if sooner);
    // the starts follow the log exactly; every window of arrivals is counted.
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let run = 0; run < 20; run++) {
      const limit = 1 + Math.floor(random() * 5);
      const log = new SlidingWindowLog(limit, 100);
      const bound = 300;
      const open: { ticket: number; start: number; answer: number; arrival: number }[] = [];
      const arrivals: number[] = [];
      let now = 0;
      for (let n = 0; n < 400; n++) {
        // Answers due by now come first, in time order.
        open.sort((a, b) => a.answer - b.answer);
        const free = log.nextFreeAt(now);
        while (open.length && open[0]!.answer <= free) {
          const call = open.shift()!;
          log.settle(call.ticket, call.answer);
        }
        now = Math.max(now, log.nextFreeAt(now));
        if (open.length && open[0]!.answer < now) continue;
        const slow = random() < 0.2;
        const answer = now + (slow ? 50 + random() * 2000 : random() * 40);
        const arrival = now + random() * Math.min(answer - now, bound);
        const ticket = log.start(now + bound, now);
        open.push({ ticket, start: now, answer, arrival });
        arrivals.push(arrival);
        now += random() * 10;
      }
      arrivals.sort((a, b) => a - b);
      for (let i = limit; i < arrivals.length; i++)
        expect(arrivals[i]! - arrivals[i - limit]!).toBeGreaterThanOrEqual(100);
    }
  });
});
