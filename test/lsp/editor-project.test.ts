/**
 * The checker's problems as the playground's editor shows them (src/lsp/editor-project.ts): the range
 * a problem names, or the word at it; quick fixes limited to the edited file; the project's snapshot.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../src/flows/problems.ts';
import { EditorProject, toDiagnostic } from '../../src/lsp/editor-project.ts';

const LINES = ['flow: demo', 'steps:', '  ask:', '    next: dnoe # typo'];
const base: Problem = {
  file: 'flows/demo.flow.yaml',
  line: 4,
  col: 11,
  code: 'unknown-step',
  severity: 'error',
  message: 'unknown step "dnoe"',
};

describe('toDiagnostic', () => {
  it('underlines the word at the problem when the problem names no end', () => {
    expect(toDiagnostic(base, LINES)).toEqual({
      from: { line: 4, col: 11 },
      to: { line: 4, col: 15 },
      severity: 'error',
      message: 'unknown step "dnoe"',
      code: 'unknown-step',
    });
  });

  it('takes the end, code and hint the problem has, and the fixes that edit this file only', () => {
    const edit = { file: 'flows/demo.flow.yaml', line: 4, col: 11, endLine: 4, endCol: 15, newText: 'done' };
    const problem: Problem = {
      ...base,
      endLine: 4,
      endCol: 15,
      code: 'unknown-step',
      hint: 'did you mean "done"?',
      fixes: [
        { title: 'Change to "done"', edits: [edit] },
        { title: 'Rename in both files', edits: [edit, { ...edit, file: 'flows/other.flow.yaml' }] },
      ],
    };
    expect(toDiagnostic(problem, LINES)).toEqual({
      from: { line: 4, col: 11 },
      to: { line: 4, col: 15 },
      severity: 'error',
      message: 'unknown step "dnoe"',
      hint: 'did you mean "done"?',
      code: 'unknown-step',
      fixes: [
        {
          title: 'Change to "done"',
          edits: [{ from: { line: 4, col: 11 }, to: { line: 4, col: 15 }, newText: 'done' }],
        },
      ],
    });
  });

  it('underlines one character at the end of a line rather than nothing', () => {
    expect(toDiagnostic({ ...base, line: 2, col: 7 }, LINES).to).toEqual({ line: 2, col: 8 });
  });
});

describe('EditorProject.snapshot', () => {
  it("is the flows folder as the language service takes it, with the editor's text over the edited file", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-editor-project-'));
    try {
      mkdirSync(join(dir, 'locales'));
      mkdirSync(join(dir, 'tests'));
      writeFileSync(join(dir, 'a.flow.yaml'), 'flow: a\n');
      writeFileSync(join(dir, 'b.flow.yaml'), 'flow: b\n');
      writeFileSync(join(dir, 'locales', 'en.ftl'), 'hello = Hello\n');
      writeFileSync(join(dir, 'tests', 'a.test.yaml'), 'flow: a\n');
      const snapshot = await new EditorProject(dir).snapshot('a.flow.yaml', 'flow: a # unsaved\n');
      expect(snapshot.flows).toEqual([
        { file: join(dir, 'b.flow.yaml'), text: 'flow: b\n' },
        { file: join(dir, 'a.flow.yaml'), text: 'flow: a # unsaved\n' },
      ]);
      expect(snapshot.catalogs).toEqual([
        { file: join(dir, 'locales', 'en.ftl'), text: 'hello = Hello\n', locale: 'en' },
      ]);
      expect(snapshot.transcripts).toEqual([{ file: join(dir, 'tests', 'a.test.yaml'), text: 'flow: a\n' }]);
      expect(snapshot.registryFile).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
