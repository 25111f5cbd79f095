/**
 * One clock (issue 37): every time the pipeline records or compares is read from the injected clock
 * (`Clock` in src/store/ports/clock.ts: the engine's `clock`/`now`, the scheduler's `clock`, a store's `now`,
 * `systemClock` where a composition root or a default chooses the real one), so a test or a replay drives it
 * with a virtual clock. The few reads that must stay on this machine's real time (lease liveness, shutdown
 * deadlines, the loop's watchdog, process-level timers) call `wallNow()` (src/store/ports/wall-time.ts),
 * whose comment says why.
 *
 * This test scans every source file under src/ for a raw read of the wall clock (`Date.now()`, `Date.now` as
 * a function, `new Date()` without an argument) outside comments, and fails naming file:line, except in the
 * files listed below with their reason. `performance.now()` is not a time of day (it measures durations)
 * and is not looked for.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');

/** Files (or folders, ending in `/`) that may read the wall clock raw, and why. */
const ALLOWED: readonly { path: string; why: string }[] = [
  {
    path: 'src/store/ports/clock.ts',
    why: '`systemClock`: the one clock the pipeline reads when no other is injected',
  },
  {
    path: 'src/store/ports/wall-time.ts',
    why: '`wallNow()`: the named reads of real time (its comment lists them)',
  },
  {
    path: 'src/sandbox/',
    why: 'the sandbox emulates the platform, which stamps its messages and limits its rates on its own (real) clock',
  },
];

/** A raw read of the wall clock. */
const RAW = /\bDate\.now\b|\bnew Date\(\s*\)/;

/** The 1-based lines of `text` that read the wall clock raw; comment lines are skipped. */
function rawClockReads(text: string): number[] {
  const found: number[] = [];
  text.split('\n').forEach((line, i) => {
    const code = line.trimStart();
    if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return;
    if (RAW.test(line)) found.push(i + 1);
  });
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const allowed = (file: string) =>
  ALLOWED.some((a) => (a.path.endsWith('/') ? file.startsWith(a.path) : file === a.path));

describe('one clock', () => {
  const files = sources(SRC).map((path) => ({
    file: relative(ROOT, path),
    text: readFileSync(path, 'utf8'),
  }));

  it('no raw Date.now() in src/ outside the clock, wallNow() and the sandbox', () => {
    const offenders = files
      .filter(({ file }) => !allowed(file))
      .flatMap(({ file, text }) => rawClockReads(text).map((line) => `${file}:${line}`));
    expect(
      offenders,
      'read the injected clock (a `Clock`, a `now` option, `systemClock` at a composition root), or, for real time that is right there, `wallNow()` with the reason in wall-time.ts',
    ).toEqual([]);
  });

  it('every allowed file exists and still reads the wall clock (no stale exception)', () => {
    for (const a of ALLOWED) {
      const matching = files.filter(({ file }) =>
        a.path.endsWith('/') ? file.startsWith(a.path) : file === a.path,
      );
      expect(
        matching.some(({ text }) => rawClockReads(text).length > 0),
        `${a.path} is allowed but reads no wall clock`,
      ).toBe(true);
    }
  });

  it('the scanner finds each form of a raw read and passes the clock, wallNow() and comments', () => {
    const text = [
      'const a = Date.now();', // 1
      'const store = sqliteStore(db, { now: Date.now });', // 2
      'const shown = new Date().toISOString();', // 3
      'const b = clock.now();', // 4
      'const c = systemClock.now();', // 5
      'const d = wallNow();', // 6
      'const e = new Date(at).toISOString();', // 7
      '// a comment about Date.now()', // 8
      ' * doc: default `Date.now()`', // 9
      'const f = x + Date.now() - 1;', // 10
    ].join('\n');
    expect(rawClockReads(text)).toEqual([1, 2, 3, 10]);
  });
});
