/**
 * The package's entry points stay small and documented: every name the main entry exports has a doc
 * comment (what a user sees on hover), and the main entry stays a short list.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../', import.meta.url));

function exportsOf(entry: string): Array<{ name: string; documented: boolean }> {
  const file = `${repo}${entry}`;
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  return checker.getExportsOfModule(module).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const docs = ts.displayPartsToString(target.getDocumentationComment(checker)).trim();
    return { name: symbol.getName(), documented: docs.length > 0 };
  });
}

describe('the main entry (botflow-engine)', () => {
  const names = exportsOf('src/index.ts');

  it('is small', () => {
    expect(names.length).toBeGreaterThan(10);
    expect(names.length).toBeLessThanOrEqual(30);
  });

  it('documents every name it exports', () => {
    expect(names.filter((n) => !n.documented).map((n) => n.name)).toEqual([]);
  });
});
