/** `botflow check [dir]`: schema and semantic checks of every flow file; exit code 1 on any error. */

import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { importCode } from '../flows/import-code.ts';
import { FLOW_SUFFIX, loadFlows, readFlowSources } from '../flows/load.ts';
import { formatProblem, hasErrors, type Problem } from '../flows/problems.ts';
import { EMPTY_REGISTRY, type Registry } from '../flows/registry.ts';
import { campaignStarts, catalogTexts, checkCampaigns, knownFlows } from './campaign-check.ts';
import { type Command, takeBotFlowsDir } from './command.ts';

const HELP = `usage: botflow check [dir] [--registry <file.ts>] [--campaigns <dir>] [--bot <name>] [--json]

Checks every <dir>/*.flow.yaml (default dir: flows) against the schema, the references between steps
and flows, the registered validators, guards, effects and tasks, each task's input against its schema
(<dir>/registry.ts unless --registry), the locale catalogs (<dir>/locales/*.ftl) and the platform's limits. Then every campaign file
(<campaigns>/*.campaign.yaml, default campaigns: the folder botflow campaign reads) against its format and
those flows: the flow it starts, the variables it passes, its segment's tags and variables, its rate,
quiet hours and time zone. Prints file:line:col: problems.

--bot   the flows folder of that bot of bots: (botflow.config.yaml; docs/bots.md) instead of flows

--json  print the problems as one JSON array instead, for editors and CI: each with file, line, col,
        endLine, endCol (1-based, the end exclusive), code (a stable name of the kind of problem, listed
        in docs/problems.md), severity (error, warning or note), message, hint, and fixes (each a title
        and its edits: file, line, col, endLine, endCol, newText)
Exit code: 0 when there is no error (warnings allowed), 1 otherwise.`;

export const command: Command = {
  options: ['registry', 'campaigns', 'json', 'bot'],
  summary: 'check flow files: schema, references, i18n keys, platform limits',
  async run(args) {
    if (args.includes('--help') || args.includes('-h')) {
      console.log(HELP);
      return 0;
    }
    const json = args.includes('--json');
    if (json) args.splice(args.indexOf('--json'), 1);
    const registry = await registryOption(args);
    if (registry === null) return 2;
    const c = args.indexOf('--campaigns');
    const campaignsDir = c >= 0 ? args[c + 1] : 'campaigns';
    if (!campaignsDir) {
      console.error('botflow check: --campaigns needs a folder');
      return 2;
    }
    if (c >= 0) args.splice(c, 2);
    const flowsDir = takeBotFlowsDir(args, 'botflow check');
    if (flowsDir === null) return 2;
    const given = args[0] ?? flowsDir ?? 'flows';
    if (!existsSync(given)) {
      console.error(
        `botflow check: ${given} does not exist: give the flows folder (default: flows) or one flow file`,
      );
      return 2;
    }
    // One file: the whole folder is checked (flows refer to each other), and that file's problems shown.
    const only = statSync(given).isFile() ? resolve(given) : undefined;
    if (only && !only.endsWith(FLOW_SUFFIX)) {
      console.error(`botflow check: ${given} is not a flow file (*${FLOW_SUFFIX})`);
      return 2;
    }
    const dir = only ? dirname(given) : given;
    const count = only ? 1 : readFlowSources(dir).length;
    if (count === 0) {
      console.error(`botflow check: no *.flow.yaml files in ${dir}`);
      return 1;
    }
    // The flows know the variables campaigns start them with.
    const started = campaignStarts(campaignsDir);
    const loaded = await loadFlows(dir, { ...(registry ? { registry } : {}), started });
    const problems = only ? loaded.problems.filter((p) => resolve(p.file) === only) : loaded.problems;
    const flows = only
      ? loaded.flows.filter((f) => `${f.id}${FLOW_SUFFIX}` === basename(only))
      : loaded.flows;
    // The campaigns are checked with the whole folder, not when one flow file is asked for.
    const campaigns = only
      ? undefined
      : checkCampaigns(
          campaignsDir,
          knownFlows(readFlowSources(dir), loaded.registry ?? EMPTY_REGISTRY, catalogTexts(dir)),
        );
    if (campaigns) problems.push(...campaigns.problems);
    if (json) {
      console.log(JSON.stringify(problems.map(problemJson), null, 2));
      return hasErrors(problems) ? 1 : 0;
    }
    for (const p of problems) console.log(formatProblem(p));
    const errors = problems.filter((p) => p.severity === 'error').length;
    const warnings = problems.filter((p) => p.severity === 'warning').length;
    const notes = problems.length - errors - warnings;
    console.log(
      `${count} flow file(s), ${flows.length} compiled${campaigns ? `, ${campaigns.files} campaign file(s)` : ''}: ${errors} error(s), ${warnings} warning(s)${notes ? `, ${notes} note(s)` : ''}`,
    );
    return hasErrors(problems) ? 1 : 0;
  },
};

/** The registry given with --registry (taken out of `args`), undefined without one, null when it cannot load. */
async function registryOption(args: string[]): Promise<Registry | undefined | null> {
  let registry: Registry | undefined;
  const at = args.indexOf('--registry');
  if (at >= 0) {
    const file = args[at + 1];
    if (!file) {
      console.error('botflow check: --registry needs a file');
      return null;
    }
    try {
      const mod = await importCode(resolve(file));
      registry = (mod.default ?? mod.registry) as Registry | undefined;
    } catch (error) {
      const hint = (error as { hint?: string }).hint;
      console.error(
        `botflow check: cannot load the registry ${file}: ${(error as Error).message.split('\n')[0]}` +
          (hint ? `\n    hint: ${hint}` : ''),
      );
      return null;
    }
    if (!registry?.validators) {
      console.error(`botflow check: ${file} has no default export made by defineRegistry()`);
      return null;
    }
    args.splice(at, 2);
  }
  return registry;
}

/** A problem as --json prints it: every field named, in the same order. */
function problemJson(p: Problem) {
  return {
    file: p.file,
    line: p.line,
    col: p.col,
    endLine: p.endLine ?? p.line,
    endCol: p.endCol ?? p.col,
    code: p.code,
    severity: p.severity,
    message: p.message,
    hint: p.hint ?? null,
    fixes: p.fixes ?? [],
  };
}
