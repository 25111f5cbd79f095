/**
 * No test waits a fixed time (issue 37). A test that sleeps is slow when the machine is fast and flaky when
 * it is slow; it waits instead for the condition it needs (`eventually` in test/support/eventually.ts), moves
 * a virtual clock (the engine's and the task runner's injected clocks, the harness's `advance`), or, to
 * assert that nothing more happens, waits for the signal that the system is idle (`engine.drain()`,
 * `runner.idle()`, or `untilIdle` in test/support/idle.ts for a bot in another process).
 *
 * This test scans every source file under test/ for a sleep: a promise resolved by a timer
 * (`new Promise((r) => setTimeout(r, ms))`), `node:timers/promises`, or an awaited `sleep`/`delay`/`pause`
 * helper, and fails naming file:line. The exceptions are listed below, each with its reason: the poll of
 * the one waiting helper, and real time that is itself the thing under test. test/bench/ is not scanned:
 * a benchmark paces its simulated people on real time because the load's rate is what it measures, and
 * `npm test` does not run it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TEST = join(ROOT, 'test');
const SELF = 'test/architecture/no-sleeps.test.ts';
const NOT_SCANNED = ['test/bench/'];

/** What a sleep looks like, each with the name the failure uses. */
const SLEEPS: readonly { name: string; pattern: RegExp }[] = [
  { name: 'a promise resolved by a timer', pattern: /setTimeout\(\s*(resolve|res|r|done|next|wake)\s*,/ },
  { name: 'node:timers/promises', pattern: /['"](node:)?timers\/promises['"]/ },
  { name: 'an awaited sleep helper', pattern: /\bawait\s+(sleep|delay|pause|wait)\s*\(/ },
];

/** Sleeps that stay: `file` and a fragment of the line, and why real time is the point there. */
const ALLOWED: readonly { file: string; line: string; why: string }[] = [
  {
    file: 'test/support/eventually.ts',
    line: 'setTimeout(resolve, everyMs)',
    why: 'the poll interval of the one helper that waits on a condition',
  },
  {
    file: 'test/runtime/tasks-crash.e2e.test.ts',
    line: "import { setTimeout as delay } from 'node:timers/promises';",
    why: "the registry the child process loads: its task polls for the release file (a condition) in the child's own code",
  },
  {
    file: 'test/runtime/tasks-crash.e2e.test.ts',
    line: 'while (!existsSync(',
    why: 'that poll: the task waits for the file the test creates after the kill',
  },
  {
    file: 'test/runtime/cluster-budget.e2e.test.ts',
    line: "const REGISTRY_FILE = `import { setTimeout as delay } from 'node:timers/promises';",
    why: 'the registry the child processes load: a task that runs 9 s on real time',
  },
  {
    file: 'test/runtime/cluster-budget.e2e.test.ts',
    line: 'await delay(9000, undefined, { signal: ctx.signal })',
    why: 'the 9 s task is the window under test: "typing…" repeats from whichever process owns it, within the real rate limit',
  },
  {
    file: 'test/runtime/cluster-dispatcher-kills.e2e.test.ts',
    line: 'setTimeout(resolve, random() * 2000)',
    why: "the load's shape: each person starts at a random moment (the platform's per-second limits are real time)",
  },
  {
    file: 'test/runtime/cluster-dispatcher-kills.e2e.test.ts',
    line: 'setTimeout(resolve, 1500 + random() * 1000)',
    why: "the load's shape: each person writes every 1.5 to 2.5 s while the kills happen",
  },
  {
    file: 'test/runtime/cluster-dispatcher-kills.e2e.test.ts',
    line: 'setTimeout(resolve, 8000 + random() * 4000)',
    why: 'the kills land at random moments of a live load, which is what the test is about',
  },
  {
    file: 'test/runtime/cluster-crash.e2e.test.ts',
    line: 'setTimeout(resolve, 1000 + random() * 2000)',
    why: "the load's shape: each person writes a message every 1 to 3 s while the kills happen",
  },
  {
    file: 'test/runtime/cluster-crash.e2e.test.ts',
    line: 'setTimeout(resolve, 800 + random() * 1500)',
    why: 'the kills land at random moments of a live load, which is what the test is about',
  },
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return /\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Every sleep in `files` (path relative to the repository → text), as `file:line: what — the line`. */
function findSleeps(
  files: ReadonlyMap<string, string>,
  allowed = ALLOWED,
): {
  sleeps: string[];
  unused: string[];
} {
  const used = new Set<(typeof allowed)[number]>();
  const sleeps: string[] = [];
  for (const [file, text] of files) {
    text.split('\n').forEach((line, i) => {
      const sleep = SLEEPS.find((s) => s.pattern.test(line));
      if (!sleep) return;
      const allowance = allowed.find((a) => a.file === file && line.includes(a.line));
      if (allowance) used.add(allowance);
      else sleeps.push(`${file}:${i + 1}: ${sleep.name} — ${line.trim()}`);
    });
  }
  const unused = allowed.filter((a) => !used.has(a)).map((a) => `${a.file}: ${a.line}`);
  return { sleeps, unused };
}

function testFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const path of sources(TEST)) {
    const file = relative(ROOT, path).split('\\').join('/');
    if (file === SELF || NOT_SCANNED.some((dir) => file.startsWith(dir))) continue;
    files.set(file, readFileSync(path, 'utf8'));
  }
  return files;
}

it('no test sleeps a fixed time: it waits for a condition, moves a virtual clock or waits for idle', () => {
  const { sleeps } = findSleeps(testFiles());
  expect(
    sleeps,
    'wait for what you need instead: eventually() (test/support/eventually.ts), a virtual clock, ' +
      'engine.drain() / runner.idle(), or untilIdle() (test/support/idle.ts) for "nothing more happens"',
  ).toEqual([]);
});

it('every allowed sleep is still there (an allowance that matches nothing goes)', () => {
  expect(findSleeps(testFiles()).unused).toEqual([]);
});

it('finds the shapes of a sleep, and names file and line', () => {
  const files = new Map([
    [
      'test/x.test.ts',
      [
        'await new Promise((r) => setTimeout(r, 3_000)); // a duplicate would have arrived by now',
        "import { setTimeout as sleep } from 'node:timers/promises';",
        'await delay(50);',
        'await new Promise((resolve) => {',
        '  setTimeout(resolve, 100);',
        '});',
        "await eventually('a reply', () => seen.length > 0);",
        'const race = new Promise((resolve) => setTimeout(() => resolve("timeout"), 60_000));',
      ].join('\n'),
    ],
  ]);
  expect(findSleeps(files, []).sleeps.map((s) => s.split(':').slice(0, 2).join(':'))).toEqual([
    'test/x.test.ts:1',
    'test/x.test.ts:2',
    'test/x.test.ts:3',
    'test/x.test.ts:5',
  ]);
});
