// `npm run bench -- lsp`: botflow lsp through the real server over stdio, as an editor drives it, on a
// copy of the example project with a generated 300-step flow (every kind of step, ~100 variables, message
// ids, call: steps into another flow) open. After a keystroke (didChange): the time until the file's fresh
// diagnostics arrive, and until a caller's arrive when its callee changes; completion's latency; the
// server's RSS. Figures for people, then one JSON line. Goals: p95 ≤ 100 ms, ≤ 30 ms, ≤ 150 MB.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { copyExampleProject, LspClient, localise, REPO, remove } from '../lsp/lsp-client.ts';
import { STEPS, writeBenchProject } from './lsp-project.ts';

const EDITS = 120;
const BIG = 'flows/big.flow.yaml';
const SUB = 'flows/sub.flow.yaml';

// The server as a project runs it: the built package (dist/, built first), not the checkout's sources
// through tsx, which hold their transformed text and source maps (~20 MB more).
execFileSync(process.execPath, [join(REPO, 'scripts', 'build.mjs')], { stdio: 'ignore' });
const built = `const m = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist', 'cli.js')).href)}); process.exitCode = await m.main(['lsp', '--stdio']);`;
const dir = copyExampleProject();
// Its registry imports botflow as a project's does: the same built modules the server runs, loaded once.
localise(join(dir, 'flows'), /[^'"]*\/src\/flows\/registry\.ts/g, join(REPO, 'dist', 'index.js'));
writeBenchProject(dir);
const client = await LspClient.start(dir, {}, ['--input-type=module', '-e', built]);
const big = readFileSync(join(dir, BIG), 'utf8');
const sub = readFileSync(join(dir, SUB), 'utf8');
for (const f of ['flows/signup.flow.yaml', 'flows/booking.flow.yaml', 'flows/locales/en.ftl']) client.open(f);
client.open(BIG, big);
client.open(SUB, sub);
// The first check (the registry loaded, every file read).
await client.diagnostics(BIG);

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
};

/** A keystroke in `file` (the new text), timed until `wait`'s file has diagnostics published after it. */
async function keystroke(file: string, text: string, wait: string, ok: (n: number) => boolean) {
  const since = client.seq;
  const t = performance.now();
  client.change(file, text);
  await client.diagnostics(wait, (d) => ok(d.length), since);
  return performance.now() - t;
}

// Typing in the big flow: a `next:` made wrong, then right again, at steps all over the file. The first
// WARMUP keystrokes are not counted, so that the figures do not pay for the JIT (as an editor's first
// minute would).
const WARMUP = 20;
const own: number[] = [];
/** The server's CPU time so far (user + system, ms): steadier than the latencies on a shared machine. */
const cpuMs = () => {
  const fields = readFileSync(`/proc/${client.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
let cpuStart = 0;
for (let i = -WARMUP; i < EDITS; i++) {
  if (i === 0) cpuStart = cpuMs();
  const step = ((i + WARMUP) * 37) % (STEPS - 1);
  const target = `next: s${step + 1}\n`;
  const at = big.indexOf(target);
  const broken = at < 0 ? big : `${big.slice(0, at)}next: s${step + 1}x\n${big.slice(at + target.length)}`;
  const ms = await keystroke(BIG, i % 2 === 0 ? broken : big, BIG, (n) => (i % 2 === 0 ? n > 0 : true));
  if (i >= 0) own.push(ms);
}
const cpuPerKeystrokeMs = Math.round(((cpuMs() - cpuStart) / EDITS) * 10) / 10;
// Typing in the called flow's id: every call: of the big flow breaks, then is well again.
const affected: number[] = [];
for (let i = 0; i < EDITS; i++) {
  const text = i % 2 === 0 ? sub.replace('flow: sub', 'flow: subx') : sub;
  affected.push(await keystroke(SUB, text, BIG, (n) => (i % 2 === 0 ? n > 0 : true)));
}
// Completion after `next: ` in the big flow.
const lines = big.split('\n');
const line = lines.findIndex((l) => l.startsWith('    next: '));
const completion: number[] = [];
for (let i = 0; i < EDITS; i++) {
  const t = performance.now();
  await client.request('textDocument/completion', {
    textDocument: { uri: client.uri(BIG) },
    position: { line, character: '    next: '.length },
  });
  completion.push(performance.now() - t);
}
const status = readFileSync(`/proc/${client.child.pid}/status`, 'utf8');
const rssMb = Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
await client.stop();
remove(dir);

const figures = {
  bench: 'lsp',
  steps: STEPS,
  edits: EDITS,
  diagnosticsP50Ms: quantile(own, 0.5),
  diagnosticsP95Ms: quantile(own, 0.95),
  diagnosticsMaxMs: quantile(own, 1),
  affectedP50Ms: quantile(affected, 0.5),
  affectedP95Ms: quantile(affected, 0.95),
  completionP50Ms: quantile(completion, 0.5),
  completionP95Ms: quantile(completion, 0.95),
  cpuPerKeystrokeMs,
  rssMb,
};
console.log(
  `diagnostics after a keystroke in the ${STEPS}-step flow: p50 ${figures.diagnosticsP50Ms} ms, p95 ${figures.diagnosticsP95Ms} ms (goal p95 ≤ 100)`,
);
console.log(
  `a caller's diagnostics after a keystroke in the flow it calls: p50 ${figures.affectedP50Ms} ms, p95 ${figures.affectedP95Ms} ms (goal p95 ≤ 100)`,
);
console.log(
  `completion: p50 ${figures.completionP50Ms} ms, p95 ${figures.completionP95Ms} ms (goal p95 ≤ 30)`,
);
console.log(`the server's CPU time per keystroke in the big flow: ${cpuPerKeystrokeMs} ms`);
console.log(`server RSS with the example project and that flow open: ${rssMb} MB (goal ≤ 150)`);
console.log(JSON.stringify(figures));
