/**
 * Campaign files (`campaigns/<name>.campaign.yaml`): YAML read with line counting and checked against the
 * campaign format; a problem is reported at its `file:line:col`, as flow files' are.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { isMap, isScalar, LineCounter, type Node, parseDocument } from 'yaml';
import { CampaignError, type CampaignSpec, parseCampaignSpec } from './spec.ts';

/** The suffix of campaign files. */
export const CAMPAIGN_SUFFIX = '.campaign.yaml';

/** A campaign file's campaign and its name (the `name:` key, else the file name without the suffix). */
export interface CampaignFile {
  name: string;
  spec: CampaignSpec;
}

/** Reads and checks the campaign file at `path`. Throws CampaignError (`file:line:col: …`). */
export function readCampaignFile(path: string): CampaignFile {
  let source: string;
  try {
    source = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CampaignError(
      'BOTFLOW_CAMPAIGN_INVALID',
      `${path}: cannot read it (${(error as Error).message})`,
    );
  }
  return parseCampaignSource(source, path);
}

/** Checks the text of a campaign file named `file`. */
export function parseCampaignSource(source: string, file: string): CampaignFile {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number) => {
    const p = lines.linePos(offset);
    return `${file}:${p.line}:${p.col}`;
  };
  const first = doc.errors[0];
  if (first) throw new CampaignError('BOTFLOW_CAMPAIGN_INVALID', `${at(first.pos[0])}: ${first.message}`);
  const data = doc.toJS() as unknown;
  const parsed = parseCampaignSpec(data);
  if (!parsed.ok) {
    const issue = parsed.issues[0]!;
    const where = locate(doc.contents, issue.path as (string | number)[]);
    const path = issue.path.join('.');
    throw new CampaignError(
      'BOTFLOW_CAMPAIGN_INVALID',
      `${at(where)}: ${path ? `${path}: ` : ''}${issue.message}`,
    );
  }
  const name = basename(file)
    .replace(CAMPAIGN_SUFFIX, '')
    .replace(/\.ya?ml$/, '');
  return { name: parsed.spec.name ?? name, spec: data as CampaignSpec };
}

/** The offset of the value at `path` (or of the deepest part of it found). */
function locate(root: unknown, path: readonly (string | number)[]): number {
  let node = root as Node | null | undefined;
  let best = node?.range?.[0] ?? 0;
  for (const seg of path) {
    if (!isMap(node)) break;
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
    if (!pair) break;
    best = (pair.key as Node).range?.[0] ?? best;
    node = pair.value as Node | null;
  }
  return best;
}
