/** `botflow check [dir]`: schema and semantic checks of every flow file; exit code 1 on any error. */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from '../cli.ts';
import { FLOW_SUFFIX, loadFlows, readFlowSources } from './load.ts';
import { formatProblem, hasErrors } from './problems.ts';
import type { Registry } from './registry.ts';

const HELP = `usage: botflow check [dir | file.flow.yaml] [--registry <file.ts>]

Checks every <dir>/*.flow.yaml (default dir: flows), or one file (with its folder's registry, locales and
the flows it calls), against the schema, the references between steps
and flows, the registered validators, guards and effects (<dir>/registry.ts unless --registry), the
locale catalogs (<dir>/locales/*.ftl) and the platform's limits. Prints file:line:col: problems.
Exit code: 0 when there is no error (warnings allowed), 1 otherwise.`;

export const command: Command = {
  options: ['registry'],
  summary: 'check flow files: schema, references, i18n keys, platform limits',
  async run(args) {
    if (args.includes('--help') || args.includes('-h')) {
      console.log(HELP);
      return 0;
    }
    let registry: Registry | undefined;
    const at = args.indexOf('--registry');
    if (at >= 0) {
      const file = args[at + 1];
      if (!file) {
        console.error('botflow check: --registry needs a file');
        return 2;
      }
      try {
        const mod = (await import(pathToFileURL(resolve(file)).href)) as {
          default?: Registry;
          registry?: Registry;
        };
        registry = mod.default ?? mod.registry;
      } catch (error) {
        console.error(
          `botflow check: cannot load the registry ${file}: ${(error as Error).message.split('\n')[0]}`,
        );
        return 2;
      }
      if (!registry?.validators) {
        console.error(`botflow check: ${file} has no default export made by defineRegistry()`);
        return 2;
      }
      args.splice(at, 2);
    }
    const target = args[0] ?? 'flows';
    if (!existsSync(target)) {
      console.error(`botflow check: no such file or folder: ${target}`);
      return 2;
    }
    // A single file is checked with its folder's registry, locales and the flows it may call.
    const single = statSync(target).isFile() ? target : undefined;
    if (single && !single.endsWith(FLOW_SUFFIX)) {
      const what = /\.test\.ya?ml$/.test(single)
        ? `is a transcript: run it with botflow test ${single}`
        : `is not a flow file (flow files end in ${FLOW_SUFFIX})`;
      console.error(`botflow check: ${single} ${what}`);
      return 2;
    }
    const dir = single ? dirname(single) : target;
    const count = single ? 1 : readFlowSources(dir).length;
    if (count === 0) {
      console.error(`botflow check: no *${FLOW_SUFFIX} files in ${dir}`);
      return 1;
    }
    const loaded = await loadFlows(dir, registry ? { registry } : {});
    const mine = (file: string) =>
      !single || resolve(file) === resolve(single) || !file.endsWith(FLOW_SUFFIX);
    const problems = loaded.problems.filter((p) => mine(p.file));
    const flows = single
      ? loaded.flows.filter((f) => `${f.id}${FLOW_SUFFIX}` === basename(single))
      : loaded.flows;
    for (const p of problems) console.log(formatProblem(p));
    const errors = problems.filter((p) => p.severity === 'error').length;
    const warnings = problems.length - errors;
    console.log(
      `${count} flow file(s), ${flows.length} compiled: ${errors} error(s), ${warnings} warning(s)`,
    );
    return hasErrors(problems) ? 1 : 0;
  },
};
