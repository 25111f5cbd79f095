/**
 * `botflow test [paths] [--flows dir] [--coverage] [--skeletons dir]`: runs transcripts against the flows
 * and prints a pass/fail line per transcript, the side-by-side report of each failure, and (with
 * --coverage) the steps and transitions no transcript exercised.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { closest, formatProblem } from '../flows/problems.ts';
import { coverageReport, formatCoverage, skeletons } from '../testing/coverage.ts';
import { CoverageRecorder } from '../testing/coverage-recorder.ts';
import { loadProjectOrThrow } from '../testing/flows.ts';
import { loadTranscripts } from '../testing/load.ts';
import { runTranscript } from '../testing/run.ts';
import { type Command, takeBotFlowsDir } from './command.ts';

const USAGE = `usage: botflow test [paths…] [options]

Runs the transcripts (*.test.yaml) found in paths (files or folders; default: flows) against the flows,
each in its own in-process sandbox with a virtual clock.

options:
  --flows <dir>        the flows under test (default: flows)
  --bot <name>         the flows folder of that bot of bots: (botflow.config.yaml; docs/bots.md)
  --coverage           list per flow the steps and transitions no transcript exercised
  --skeletons <dir>    with --coverage: write <flow>.skeleton.yaml transcripts for the shortest paths to them
  -h, --help           this text

exit code: 0 all passed, 1 a transcript failed (or coverage is incomplete with --skeletons), 2 bad input`;

/** Runs `botflow test`; `print` gets every line of output. */
export async function runTests(args: string[], print: (line: string) => void): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  const botDir = takeBotFlowsDir(args, 'botflow test');
  if (botDir === null) return 2;
  try {
    parsed = parse(args);
  } catch (error) {
    print(`botflow test: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    print(USAGE);
    return 0;
  }
  const flowsDir = values.flows ?? botDir ?? 'flows';
  const { transcripts, problems } = loadTranscripts(positionals.length ? positionals : [flowsDir]);
  for (const p of problems) print(formatProblem(p));
  if (problems.length) return 2;
  if (!transcripts.length) {
    print(`botflow test: no transcripts (*.test.yaml) in ${positionals.join(', ') || flowsDir}`);
    return 2;
  }
  let flows: Awaited<ReturnType<typeof loadProjectOrThrow>>['flows'];
  let tasks: Awaited<ReturnType<typeof loadProjectOrThrow>>['tasks'];
  try {
    ({ flows, tasks } = await loadProjectOrThrow(flowsDir));
  } catch (error) {
    print(`botflow test: ${(error as Error).message}`);
    return 2;
  }
  const ids = flows.map((f) => f.id);
  const unknown = transcripts.filter((t) => !ids.includes(t.flow));
  for (const t of unknown) {
    const guess = closest(t.flow, ids);
    print(
      `${t.file}:${t.line}: error: the transcript "${t.name}" names flow "${t.flow}", which ${flowsDir} does not have` +
        (guess ? `; did you mean "${guess}"?` : `; its flows are: ${ids.join(', ')}`),
    );
  }
  if (unknown.length) return 2;
  const coverage = new CoverageRecorder();
  let failed = 0;
  for (const t of transcripts) {
    const result = await runTranscript(t, { flows, coverage, tasks });
    print(`${result.passed ? '✓' : '✗'} ${t.flow} › ${t.name}  (${t.file}:${t.line})`);
    if (!result.passed) {
      failed++;
      print(`${result.failure?.report}\n`);
    }
  }
  print(`\n${transcripts.length - failed} passed, ${failed} failed (${transcripts.length} transcripts)`);
  if (values.coverage) {
    const report = coverageReport(flows, coverage);
    print(`\n${formatCoverage(report)}`);
    if (values.skeletons) {
      mkdirSync(values.skeletons, { recursive: true });
      for (const c of report) {
        const text = skeletons(c);
        if (!text) continue;
        const file = join(values.skeletons, `${c.graph.flowId}.skeleton.yaml`);
        writeFileSync(file, `${text}\n`);
        print(`wrote ${file}`);
      }
      if (report.some((c) => c.missedSteps.length || c.missedEdges.length)) return 1;
    }
  }
  return failed ? 1 : 0;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      flows: { type: 'string' },
      coverage: { type: 'boolean' },
      skeletons: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** The `test` subcommand. */
export const command: Command = {
  options: ['flows', 'coverage', 'skeletons', 'bot', 'config'],
  summary: 'run transcripts (*.test.yaml) against the flows; --coverage lists what no transcript reached',
  run: (args) => runTests(args, (line) => console.log(line)),
};
