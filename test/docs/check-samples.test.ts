/**
 * The flow samples of docs/ marked `<!-- sample: run by test/docs/check-samples.test.ts -->` are checked
 * with `botflow check`, and what it prints must be the ```text block that follows (after its `$` line).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const NOTE = '<!-- sample: run by test/docs/check-samples.test.ts -->';

function samples(): { where: string; flow: string; printed: string[] }[] {
  const out: { where: string; flow: string; printed: string[] }[] = [];
  for (const page of readdirSync(join(repo, 'docs')).filter((f) => f.endsWith('.md'))) {
    const lines = readFileSync(join(repo, 'docs', page), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (line !== NOTE) return;
      const open = lines.indexOf('```yaml', i);
      const close = lines.indexOf('```', open + 1);
      const text = lines.indexOf('```text', close + 1);
      const end = lines.indexOf('```', text + 1);
      out.push({
        where: `docs/${page}:${i + 1}`,
        flow: lines.slice(open + 1, close).join('\n'),
        printed: lines.slice(text + 2, end),
      });
    });
  }
  return out;
}

describe('docs: what botflow check prints for the samples', () => {
  const all = samples();
  it('finds the samples', () => {
    expect(all.length).toBeGreaterThan(0);
  });
  for (const s of all) {
    it(`${s.where} prints what the page says`, () => {
      const id = /^flow: (\w+)/m.exec(s.flow)![1]!;
      const r = compileSources(
        [{ file: `flows/${id}.flow.yaml`, source: `${s.flow}\n` }],
        EMPTY_REGISTRY,
        new Map(),
      );
      expect(r.problems.map(formatProblem).join('\n').split('\n')).toEqual(s.printed);
    });
  }
});
