/**
 * What the lint passes (lint.ts, lint-designer.ts, lint-texts.ts, the kinds' own checks) are given, and how
 * they report: a problem at a path, an unknown registered name, an unsafe pattern.
 */

import type { FlowFile } from './kinds/steps.ts';
import type { Locator, Path } from './problems.ts';
import { changeTo, closest, type Problem, type ProblemCode, spanWithin } from './problems.ts';
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

/** Reports one problem, of the kind `code`, at a path of the flow file. */
export type Report = (
  code: ProblemCode,
  path: Path,
  severity: Problem['severity'],
  message: string,
  hint?: string,
  where?: ReportWhere,
) => void;

/** Where exactly a reported problem is, and its did-you-mean. */
export interface ReportWhere {
  /** Point at the key (`steps.x:`) instead of its value. */
  key?: boolean;
  /** The faulty text inside the value (a name in an expression or a text): the problem covers just it. */
  within?: string;
  /** The text that should replace the faulty one (the did-you-mean): offered as a fix. */
  change?: string;
}

/** A reporter that adds problems of `file` to `problems`, located with `locate` (and `text`, for `within`). */
export function reporter(file: string, locate: Locator, problems: Problem[], text?: string): Report {
  return (code, path, severity, message, hint, where = {}) => {
    const whole = locate.at(path, where.key);
    const span =
      (where.within !== undefined && text !== undefined && spanWithin(text, whole, where.within)) || whole;
    // A fix replaces the faulty name only, so quotes around it stay.
    const faulty = where.within ?? (where.key ? lastKey(path) : undefined);
    const target = (faulty !== undefined && text !== undefined && spanWithin(text, span, faulty)) || span;
    // Without the faulty name found, the fix would replace more than it (a whole expression): none then.
    const found = where.within === undefined || target !== whole;
    const fixes = where.change !== undefined && found ? [changeTo(file, target, where.change)] : undefined;
    problems.push({ file, ...span, code, severity, message, hint, ...(fixes ? { fixes } : {}) });
  };
}

const lastKey = (path: Path) => (path.length ? String(path[path.length - 1]) : undefined);

/** A registered name (effect, validator, guard) that the registry does not have, with a did-you-mean. */
export function unknownName(
  report: Report,
  path: Path,
  kind: 'effect' | 'guard' | 'validator',
  name: string,
  known: string[],
  builtin: string[] = [],
) {
  const guess = closest(name, [...known, ...builtin]);
  report(
    `unknown-${kind}`,
    path,
    'error',
    `unknown ${kind} "${name}"`,
    guess ? `did you mean "${guess}"?` : `register it with defineRegistry({ ${kind}s: { ${name}: … } })`,
    { within: name, ...(guess ? { change: guess } : {}) },
  );
}

/** Reports a flow-file pattern that is not valid or could backtrack catastrophically (safe-regex.ts). */
export function checkRegex(source: string, flags: string, path: Path, report: Report): void {
  const compiled = compileFlowRegex(source, flags);
  if ('error' in compiled)
    report('bad-regex', path, 'error', `the regular expression /${source}/ ${compiled.error}`);
}
