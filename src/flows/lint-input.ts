/**
 * What the lint passes (lint.ts, lint-designer.ts, lint-texts.ts, the kinds' own checks) are given, and how
 * they report: a problem at a path, an unknown registered name, an unsafe pattern.
 */

import type { FlowFile } from './kinds/steps.ts';
import type { Locator, Path } from './problems.ts';
import { closest, type Problem } from './problems.ts';
import type { Registry } from './registry.ts';
import { compileFlowRegex } from './safe-regex.ts';
import type { Catalog } from './texts.ts';

/** One flow to check, with everything its references may name. */
export interface LintInput {
  flow: FlowFile;
  file: string;
  locate: Locator;
  registry: Registry;
  catalogs: Map<string, Catalog>;
  /** Every flow that loaded, for `call`. */
  flows: Map<string, FlowFile>;
  /** The file name's flow id (`signup` for signup.flow.yaml). */
  expectedId?: string;
  /** Folder that media paths are relative to. */
  baseDir?: string;
  /** Campaigns' `with:` variables, by the flow they start: one list per campaign (campaign files). */
  started?: ReadonlyMap<string, readonly (readonly string[])[]>;
  /** The file's text, for columns inside a value. */
  text?: string;
}

/** Reports one problem at a path of the flow file. */
export type Report = (
  path: Path,
  severity: Problem['severity'],
  message: string,
  hint?: string,
  /** Point at the key (`steps.x:`) instead of its value. */
  key?: boolean,
) => void;

/** A registered name (effect, validator, guard) that the registry does not have, with a did-you-mean. */
export function unknownName(
  report: Report,
  path: Path,
  kind: string,
  name: string,
  known: string[],
  builtin: string[] = [],
) {
  const guess = closest(name, [...known, ...builtin]);
  report(
    path,
    'error',
    `unknown ${kind} "${name}"`,
    guess ? `did you mean "${guess}"?` : `register it with defineRegistry({ ${kind}s: { ${name}: … } })`,
  );
}

/** Reports a flow-file pattern that is not valid or could backtrack catastrophically (safe-regex.ts). */
export function checkRegex(source: string, flags: string, path: Path, report: Report): void {
  const compiled = compileFlowRegex(source, flags);
  if ('error' in compiled) report(path, 'error', `the regular expression /${source}/ ${compiled.error}`);
}
