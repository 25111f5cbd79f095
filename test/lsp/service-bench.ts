/**
 * The language service's micro-benchmark, run by hand (`npx tsx test/lsp/service-bench.ts`): completion
 * after a keystroke in a generated 300-step flow (test/lsp/big-flow.ts), each keystroke a new text of the
 * file, so each completion reads that file again. Prints p50 and p95 in milliseconds.
 */
import { createLanguageService } from '../../src/lsp/language-service.ts';
import { bigProject } from './big-flow.ts';
import { edited, positionOf } from './project.ts';

const project = bigProject();
const file = project.flows[0]!.file;
const base = project.flows[0]!.text;
const service = createLanguageService();
const times: number[] = [];
for (let i = 0; i < 300; i++) {
  // A keystroke: the designer types a goto at step 147, one more character each time.
  const typed = 's1'.slice(0, i % 3);
  const text = base.replace('    next: s148\n', `    next: ${typed}\n`).replace('# pad', `# pad ${i}`);
  const p = edited(project, file, `${text}# ${i}\n`);
  const at = positionOf(text, `    next: ${typed}\n`, 10 + typed.length);
  const t0 = performance.now();
  const items = service.completion(p, file, at);
  const ms = performance.now() - t0;
  if (items.length < 300) throw new Error(`expected the step ids, got ${items.length} items`);
  if (i >= 20) times.push(ms); // after warming up
}
times.sort((a, b) => a - b);
const pct = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
console.log(
  `completion after a keystroke, 300-step flow: p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms (${times.length} runs)`,
);

// For comparison: a hover after each keystroke reads the file in full (its YAML, schema, walk and graph).
const full: number[] = [];
for (let i = 0; i < 60; i++) {
  const text = `${base}# hover ${i}\n`;
  const p = edited(project, file, text);
  const t0 = performance.now();
  service.hover(p, file, positionOf(text, 'next: s148', 7));
  if (i >= 10) full.push(performance.now() - t0);
}
full.sort((a, b) => a - b);
const fpct = (q: number) => full[Math.min(full.length - 1, Math.floor(q * full.length))]!.toFixed(1);
console.log(`hover after a keystroke (a full read of the file): p50 ${fpct(0.5)} ms, p95 ${fpct(0.95)} ms`);
