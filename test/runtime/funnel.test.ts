/** Tallying the step log into a funnel: how a line sequence becomes visits, and how steps are named. */
import { describe, expect, it } from 'vitest';
import { funnelOf } from '../../src/runtime/funnel.ts';
import { stepLabel } from '../../src/runtime/funnel-text.ts';
import type { StepLogRow } from '../../src/store/step-log.ts';

const line = (
  key: string,
  session: number,
  stepInstance: number,
  step: string,
  event: StepLogRow['event'],
  at: number,
  extra: Partial<StepLogRow> = {},
): StepLogRow => ({
  conversationKey: key,
  sessionRevision: session,
  stepInstance,
  flowId: 'order',
  step,
  event,
  n: 1,
  at,
  sessionActive: false,
  ...extra,
});

describe('funnelOf', () => {
  it('reads a log line by line: moved on, started over, stopped, refused answers, the period', () => {
    const rows: StepLogRow[] = [
      // u:1 enters size, has two answers refused, moves on after 30 s, then is stopped at address.
      line('u:1', 1, 1, 'size', 'enter', 0),
      line('u:1', 1, 1, 'size', 'retry', 10_000, { n: 2 }),
      line('u:1', 1, 3, 'address', 'enter', 30_000),
      line('u:1', 1, 3, 'address', 'stop', 40_000),
      // The flow failed twice at run time at `address` (an expression over an unset variable).
      line('u:1', 1, 3, 'address', 'fail', 35_000, { n: 2 }),
      // u:2 starts over while at size (a new session), and waits there now.
      line('u:2', 1, 1, 'size', 'enter', 0),
      line('u:2', 5, 5, 'size', 'enter', 50_000, { sessionActive: true }),
      // u:3's step was entered before the period asked for: its retry alone is not counted.
      line('u:3', 1, 1, 'size', 'retry', 60_000),
    ];
    const [order] = funnelOf(rows);
    expect(order).toMatchObject({ flowId: 'order', sessions: 3, ended: 0 });
    expect(order!.steps).toEqual([
      {
        step: 'size',
        reached: 3,
        waiting: 1,
        stopped: 1,
        ended: 0,
        retries: 2,
        retriedSessions: 1,
        failures: 0,
        unrecognised: 0,
        samples: [],
        medianMs: 30_000,
      },
      {
        step: 'address',
        reached: 1,
        waiting: 0,
        stopped: 1,
        ended: 0,
        retries: 0,
        retriedSessions: 0,
        failures: 2,
        unrecognised: 0,
        samples: [],
        medianMs: null,
      },
    ]);
  });
});

describe('unrecognised texts', () => {
  it('are counted per step, the latest 5 distinct kept as samples though the log is read by conversation', () => {
    const said = (key: string, at: number, sample?: string) =>
      line(key, 1, 1, 'menu', 'unrecognised', at, sample === undefined ? {} : { sample });
    const rows: StepLogRow[] = [
      line('u:1', 1, 1, 'menu', 'enter', 0),
      said('u:1', 10, 'pizza'),
      said('u:1', 90, 'Pizza '), // the same text, typed again later: it keeps the later time and spelling
      said('u:1', 20, 'wifi'),
      said('u:1', 30), // counted only (samples off when it was written)
      line('u:2', 1, 1, 'menu', 'enter', 0),
      said('u:2', 5, 'oldest'), // older than the five below: left out
      said('u:2', 40, 'coffee'),
      said('u:2', 50, 'tea'),
      said('u:2', 60, 'juice'),
      // u:3 entered before the period asked for: its text still counts at the step.
      said('u:3', 70, 'hours?'),
    ];
    const [order] = funnelOf(rows);
    expect(order!.steps).toEqual([
      expect.objectContaining({
        step: 'menu',
        reached: 2,
        unrecognised: 9,
        samples: ['Pizza ', 'hours?', 'juice', 'tea', 'coffee'],
      }),
    ]);
  });
});

describe('FunnelTally', () => {
  it('reads a long log in one pass: a median from a sample of all visits once a step has over 100,000', () => {
    const rows = function* () {
      for (let i = 0; i < 150_000; i++) {
        const key = `u:${i}`;
        yield line(key, 1, 1, 'size', 'enter', 0);
        yield line(key, 1, 2, 'address', 'enter', i); // person i spends i ms on size
      }
    };
    const [order] = funnelOf(rows());
    expect(order).toMatchObject({ sessions: 150_000 });
    const size = order!.steps.find((s) => s.step === 'size')!;
    expect(size.reached).toBe(150_000);
    // The median of all 150,000 is 75,000 ms; keeping only the first 100,000 would say 50,000.
    expect(size.medianMs).toBeGreaterThan(72_000);
    expect(size.medianMs).toBeLessThan(78_000);
  });
});

describe('stepLabel', () => {
  it('names steps inside a called flow as people read them', () => {
    expect(stepLabel('ask_name')).toBe('ask_name');
    expect(stepLabel('__call_help>explain')).toBe('↪ help › explain');
  });
});
