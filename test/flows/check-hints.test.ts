/** check's hints name the real places, and transcripts or configuration files beside flows are no mistake. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadFlows } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';

const root = mkdtempSync(join(tmpdir(), 'botflow-hints-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('botflow check hints', () => {
  it('leaves transcripts and configuration files alone, and points at the flows folder for catalogs', async () => {
    const dir = join(root, 'dialogs');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'hi.flow.yaml'),
      'flow: hi\nstart: a\ni18n: { default_locale: en, locales: [en] }\nsteps:\n  a:\n    type: end\n    say: hi\n',
    );
    writeFileSync(join(dir, 'hi.test.yaml'), 'flow: hi\nname: x\nturns: []\n');
    writeFileSync(join(dir, 'botflow.config.example.yaml'), 'mode: polling\n');
    writeFileSync(join(dir, 'notes.yaml'), 'a: 1\n');
    const { problems } = await loadFlows(dir, { registry: EMPTY_REGISTRY });
    const shown = relative(process.cwd(), join(dir, 'locales'));
    expect(problems.map((p) => [p.severity, p.message, p.hint])).toEqual(
      expect.arrayContaining([
        ['error', 'no catalog for the default locale "en"', `add ${shown}/en.ftl`],
        [
          'warning',
          'notes.yaml is not read: only *.flow.yaml files are flows',
          'rename it to notes.flow.yaml',
        ],
      ]),
    );
    expect(problems.filter((p) => /test\.yaml|config\.example/.test(p.message))).toEqual([]);
  });
});
