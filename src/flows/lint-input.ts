/** What the lint passes (lint.ts, lint-designer.ts, lint-texts.ts) are given, and how they report. */
import type { Problem } from './problems.ts';
import type { Registry } from './registry.ts';
import type { FlowFile } from './schema.ts';
import type { Catalog } from './texts.ts';
import type { Locator, Path } from './yaml-source.ts';

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
