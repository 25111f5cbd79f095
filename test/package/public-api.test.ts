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
    // 30, and the error catalogue's class and guard (BotflowError, isBotflowError: docs/errors.md), and
    // what `bot.events.send` takes and throws (OutsideEvent, EventInvalidError).
    expect(names.length).toBeLessThanOrEqual(34);
  });

  it('documents every name it exports', () => {
    expect(names.filter((n) => !n.documented).map((n) => n.name)).toEqual([]);
  });
});

describe('botflow-engine/engine', () => {
  const names = exportsOf('src/engine/index.ts');
  const byName = new Map(names.map((n) => [n.name, n]));

  it('builds one engine on SQLite or on PostgreSQL (one of several processes), each documented', () => {
    const expected = [
      'createEngine',
      'EngineOptions',
      'Engine',
      'EngineStore',
      'openDatabase',
      'sqliteStore',
      'postgresStore',
      'ClusterRole',
      'openPostgres',
      'PostgresDatabase',
      'PostgresOptions',
    ];
    expect(expected.filter((name) => !byName.has(name))).toEqual([]);
    expect(expected.filter((name) => !byName.get(name)?.documented)).toEqual([]);
  });
});

describe('botflow-engine/intake', () => {
  it('appends to the PostgreSQL inbox too (a cluster engine reads it)', () => {
    expect(exportsOf('src/intake/index.ts').find((n) => n.name === 'PgInbox')?.documented).toBe(true);
  });

  it("validates a mini-app's initData (validateInitData and its error, documented)", () => {
    const names = exportsOf('src/intake/index.ts');
    for (const name of ['validateInitData', 'MiniAppDataError', 'MiniAppInitData'])
      expect(names.find((n) => n.name === name)?.documented, name).toBe(true);
  });

  it('serves external events over HTTP (the endpoint, its options and the event contract, documented)', () => {
    const names = exportsOf('src/intake/index.ts');
    const expected = ['eventsEndpoint', 'buildEventsServer', 'EventsEndpointOptions', 'MiniAppEventsOptions'];
    expected.push('EventsErrorBody', 'EventSender', 'OutsideEvent', 'EventReceipt', 'EventInvalidError');
    for (const name of expected) expect(names.find((n) => n.name === name)?.documented, name).toBe(true);
  });
});

describe('botflow-engine/testing', () => {
  it('loads without vitest: only botflow-engine/testing/vitest imports it', () => {
    // Every module the entry reaches through relative imports, and the packages they import.
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = ts.sys.readFile(file) ?? '';
      for (const match of text.matchAll(/^\s*(?:import|export)\s[^'";]*?from\s+'([^']+)'/gm)) {
        const spec = match[1]!;
        if (spec.startsWith('.')) visit(new URL(spec, `file://${file}`).pathname);
        else if (!/^import\s+type\b|^export\s+type\b/.test(match[0].trim())) packages.add(spec);
      }
    };
    visit(`${repo}src/testing/index.ts`);
    expect(seen.size).toBeGreaterThan(10);
    expect([...packages].filter((p) => p === 'vitest' || p.startsWith('vitest/'))).toEqual([]);
    // The crawl sees vitest where it is imported, so the check above can fail.
    visit(`${repo}src/testing/vitest.ts`);
    expect(packages.has('vitest')).toBe(true);
  });
});
