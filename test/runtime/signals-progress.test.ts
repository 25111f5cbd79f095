import { describe, expect, it } from 'vitest';
import { formatDuration, trackProgress } from '../../src/runtime/progress.ts';
import { handleSignals } from '../../src/runtime/shutdown.ts';
import { eventually } from '../support/eventually.ts';

function recorder() {
  const lines: { fields: Record<string, unknown>; msg: string }[] = [];
  const log = (fields: unknown, msg?: string) => {
    lines.push(
      typeof fields === 'string' ? { fields: {}, msg: fields } : { fields: fields as never, msg: msg ?? '' },
    );
  };
  return { lines, logger: { info: log, warn: log, error: log } as never };
}

// A signal nobody else in the test worker listens to, emitted in-process (no real signal is sent).
const SIGNAL = 'SIGUSR2' as NodeJS.Signals;

describe('handleSignals', () => {
  it('shuts down once on the first signal and exits at once (130) on the second', async () => {
    const { logger } = recorder();
    const reasons: string[] = [];
    const exits: number[] = [];
    const dispose = handleSignals({
      shutdown: async (reason) => {
        reasons.push(reason);
        await new Promise(() => {}); // a shutdown that never finishes
      },
      hardExitMs: 60_000,
      logger,
      exit: (code) => exits.push(code),
      signals: [SIGNAL],
    });
    try {
      process.emit(SIGNAL, SIGNAL);
      expect(reasons).toEqual([SIGNAL]);
      expect(exits).toEqual([]);
      process.emit(SIGNAL, SIGNAL);
      expect(exits).toEqual([130]);
      expect(reasons).toHaveLength(1);
    } finally {
      dispose();
    }
  });

  it('exits with code 1 when the shutdown overruns the hard limit', async () => {
    const { logger, lines } = recorder();
    const exits: number[] = [];
    const dispose = handleSignals({
      shutdown: () => new Promise(() => {}),
      hardExitMs: 50,
      logger,
      exit: (code) => exits.push(code),
      signals: [SIGNAL],
    });
    try {
      process.emit(SIGNAL, SIGNAL);
      await eventually('the condition', () => exits.length > 0, 10_000);
      expect(exits).toEqual([1]);
      expect(lines.at(-1)?.msg).toContain('shutdown did not finish within 50 ms');
    } finally {
      dispose();
    }
  });
});

describe('trackProgress', () => {
  it('reports what is left with a rate, then one final line, and nothing for no work', async () => {
    const { logger, lines } = recorder();
    let left = 300;
    const stop = trackProgress({
      label: 'backlog',
      startLeft: left,
      remaining: () => left,
      logger,
      intervalMs: 20,
    });
    await eventually('the condition', () => lines.length >= 2, 10_000);
    left = 100;
    await eventually('the condition', () => lines.some((l) => l.fields.remaining === 100), 10_000);
    left = 0;
    await eventually(
      'the condition',
      () => lines.some((l) => l.msg.startsWith('backlog: done (300 in')),
      10_000,
    );
    stop();
    expect(lines[0]!.msg).toBe('backlog: 300 to go');
    expect(lines.find((l) => l.fields.remaining === 100)!.msg).toMatch(
      /^backlog: 100 to go \(\d+\/s, about .+ left\)$/,
    );

    const quiet = recorder();
    trackProgress({ label: 'nothing', startLeft: 0, remaining: () => 0, logger: quiet.logger })();
    expect(quiet.lines).toEqual([]);
  });

  it('formats durations for people', () => {
    expect([formatDuration(850), formatDuration(12_400), formatDuration(185_000)]).toEqual([
      '850 ms',
      '12 s',
      '3 min 5 s',
    ]);
  });
});
