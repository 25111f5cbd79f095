/**
 * The VS Code extension (packages/vscode-botflow): it type-checks and builds to the bundle its manifest
 * names, and the files its languages claim are the files botflow lsp handles.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Project } from '../../src/lsp/project.ts';
import { REPO } from './lsp-client.ts';

const PACKAGE = join(REPO, 'packages/vscode-botflow');
/** The languages the extension's client asks botflow lsp about (src/languages.ts, a CommonJS package's source). */
const LANGUAGES = [
  ...(
    /LANGUAGES = \[([^\]]*)\]/.exec(readFileSync(join(PACKAGE, 'src/languages.ts'), 'utf8'))?.[1] ?? ''
  ).matchAll(/'([^']+)'/g),
].map((m) => m[1]);
const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
  main: string;
  activationEvents: string[];
  contributes: {
    languages: { id: string; filenamePatterns?: string[]; extensions?: string[] }[];
    grammars: { language: string; path: string }[];
  };
};

describe('the VS Code extension', () => {
  it('type-checks, and its build writes the bundle package.json names, with vscode left to the editor', () => {
    const types = spawnSync(
      process.execPath,
      [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', PACKAGE],
      {
        encoding: 'utf8',
      },
    );
    expect(types.stdout + types.stderr).toBe('');
    const build = spawnSync(process.execPath, [join(PACKAGE, 'build.mjs')], { encoding: 'utf8' });
    expect(build.status).toBe(0);
    const bundle = readFileSync(join(PACKAGE, manifest.main), 'utf8');
    expect(bundle).toContain('require("vscode")');
    expect(bundle).toContain('botflow", "lsp", "--stdio"');
    // vscode-languageclient is bundled: the extension needs no node_modules of its own.
    expect(bundle).toContain('LanguageClient');
  });

  it('claims flow files, transcripts and catalogs, exactly the files botflow lsp reads, and starts on each', () => {
    const root = mkdtempSync(join(tmpdir(), 'botflow-vscode-'));
    try {
      const project = new Project(root);
      // Where a file of each pattern sits in a project: flows at the top, catalogs in locales/, transcripts anywhere.
      const place: Record<string, string> = {
        '*.flow.yaml': 'signup.flow.yaml',
        '*.test.yaml': 'tests/signup.test.yaml',
        '.ftl': 'locales/en.ftl',
      };
      const sample = (pattern: string) => join(project.flowsDir, place[pattern] ?? pattern);
      const claimed = manifest.contributes.languages.flatMap((l) =>
        [...(l.filenamePatterns ?? []), ...(l.extensions ?? [])].map((p) => ({
          id: l.id,
          kind: project.kindOf(sample(p)),
        })),
      );
      expect(claimed).toEqual([
        { id: 'botflow-flow', kind: 'flow' },
        { id: 'botflow-test', kind: 'transcript' },
        { id: 'fluent', kind: 'catalog' },
      ]);
      expect(manifest.contributes.languages.map((l) => l.id)).toEqual([...LANGUAGES]);
      expect(manifest.activationEvents).toEqual(LANGUAGES.map((l) => `onLanguage:${l}`));
      for (const g of manifest.contributes.grammars) expect(existsSync(join(PACKAGE, g.path))).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
