// `npm run bench:ab -- --before <git-ref> [--after <git-ref>] [--bench understand] [--rounds N] [--fields RE]
// [--keep] [-- <bench options>]`: one benchmark's CPU per operation at two commits, in alternating runs.
//
// `before` is checked out into a temporary worktree (/tmp/botflow-ab-<sha>, node_modules a symlink to this
// checkout's); `after` is this checkout as it is (uncommitted changes included) unless `--after` names a
// commit (then a second temporary worktree). Both run the same workload: this checkout's test/bench/ is
// copied over each temporary worktree's, so only src/ (and flows/, locales) differ. Each round runs the
// bench once per side, each in a new process, in the order before-after then after-before (ABBA, so a
// drift of the machine's load weighs on both). Each run's JSON line gives the figures: its numeric fields
// whose path matches `--fields` (default /cpu/i: the CPU per operation the bench reports). Per figure, the
// median over the rounds on each side and the change in %. The machine's load average is printed beside.
// One JSON line at the end. Options after `--` go to the bench (`-- --samples 50000`).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const own = dash >= 0 ? argv.slice(0, dash) : argv;
const benchArgs = dash >= 0 ? argv.slice(dash + 1) : [];
const option = (name: string) => {
  const i = own.indexOf(`--${name}`);
  return i >= 0 ? own[i + 1] : undefined;
};
const beforeRef = option('before');
if (!beforeRef) {
  console.error(
    'usage: npm run bench:ab -- --before <git-ref> [--after <git-ref>] [--bench understand] [--rounds 6] [--fields cpu] [--keep] [-- bench options]',
  );
  process.exit(2);
}
const bench = option('bench') ?? 'understand';
const rounds = Number(option('rounds') ?? 6);
const fields = new RegExp(option('fields') ?? 'cpu', 'i');
if (!existsSync(join(root, 'test/bench', `${bench}.bench.ts`))) {
  console.error(`no test/bench/${bench}.bench.ts`);
  process.exit(2);
}

const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
const made: string[] = [];

/** A detached worktree of `ref` with this checkout's node_modules and test/bench/. */
function worktree(ref: string): { dir: string; sha: string } {
  const sha = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = join(mkdtempSync(join(os.tmpdir(), `botflow-ab-${sha.slice(0, 12)}-`)), 'tree');
  git('worktree', 'add', '--detach', dir, sha);
  made.push(dir);
  symlinkSync(realpathSync(join(root, 'node_modules')), join(dir, 'node_modules'));
  cpSync(join(root, 'test/bench'), join(dir, 'test/bench'), { recursive: true });
  return { dir, sha };
}

/** Numeric leaves of the JSON line whose path matches `fields`: `options_20.cpu_us_per_op` → 6.1. */
function figures(line: Record<string, unknown>, prefix = ''): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, value] of Object.entries(line)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'number' && fields.test(path)) out.set(path, value);
    else if (value && typeof value === 'object' && !Array.isArray(value))
      for (const [k, v] of figures(value as Record<string, unknown>, path)) out.set(k, v);
  }
  return out;
}

/** One run of the bench in `dir`, in a process of its own: its figures. */
function run(dir: string): Map<string, number> {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--expose-gc', join(dir, 'test/bench', `${bench}.bench.ts`), ...benchArgs],
    { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  const json = r.stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if (r.status !== 0 || !json)
    throw new Error(`${bench} in ${dir} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return figures(JSON.parse(json) as Record<string, unknown>);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const round2 = (x: number) => Math.round(x * 100) / 100;

try {
  const before = worktree(beforeRef);
  const afterRef = option('after');
  const after = afterRef
    ? worktree(afterRef)
    : {
        dir: root,
        sha: `${git('rev-parse', 'HEAD')}${git('status', '--porcelain', '--', 'src') ? '+changes' : ''}`,
      };
  const loadStart = os.loadavg().map(round2);
  const seen = { before: new Map<string, number[]>(), after: new Map<string, number[]>() };
  const loads: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
    for (const side of order) {
      for (const [k, v] of run(side === 'before' ? before.dir : after.dir)) {
        if (!seen[side].has(k)) seen[side].set(k, []);
        seen[side].get(k)!.push(v);
      }
    }
    loads.push(round2(os.loadavg()[0]!));
    console.error(`round ${i + 1}/${rounds} done, load ${loads.at(-1)}`);
  }
  const cases: Record<string, unknown> = {};
  for (const [k, b] of seen.before) {
    const a = seen.after.get(k);
    if (!a) continue;
    const mb = median(b);
    const ma = median(a);
    const delta = round2((ma / mb - 1) * 100);
    cases[k] = {
      before: round2(mb),
      after: round2(ma),
      delta_pct: delta,
      before_range: [Math.min(...b), Math.max(...b)],
      after_range: [Math.min(...a), Math.max(...a)],
    };
    console.log(`${k}: before ${round2(mb)}, after ${round2(ma)} (${delta >= 0 ? '+' : ''}${delta}%)`);
  }
  console.log(`load average at each round's end: ${loads.join(', ')} (${os.cpus().length} cores)`);
  console.log(
    JSON.stringify({
      bench: 'ab',
      of: bench,
      before: before.sha,
      after: after.sha,
      rounds,
      bench_args: benchArgs,
      cases,
      loadavg_start: loadStart,
      loadavg_rounds: loads,
    }),
  );
} finally {
  if (!own.includes('--keep'))
    for (const dir of made) {
      git('worktree', 'remove', '--force', dir);
      rmSync(dirname(dir), { recursive: true, force: true });
    }
  else for (const dir of made) console.error(`kept ${dir}`);
}
