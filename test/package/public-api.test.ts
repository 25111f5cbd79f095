/**
 * The package's entry points stay small and documented: every name the main entry exports has a doc
 * comment (what a user sees on hover), and the main entry stays a short list.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../', import.meta.url));

const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  allowImportingTsExtensions: true,
  noEmit: true,
  skipLibCheck: true,
};

function exportsOf(entry: string): Array<{ name: string; documented: boolean }> {
  const file = `${repo}${entry}`;
  const program = ts.createProgram([file], OPTIONS);
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
    // what `bot.events.send` takes and throws (OutsideEvent, EventInvalidError), and a kind of step of
    // your own (defineStepKind, StepKindSpec; its other types are in botflow-engine/flows), and many bots
    // in one deployment (createDeployment, RunningDeployment: docs/bots.md).
    expect(names.length).toBeLessThanOrEqual(38);
  });

  it('documents every name it exports', () => {
    expect(names.filter((n) => !n.documented).map((n) => n.name)).toEqual([]);
  });
});

describe('botflow-engine/client', () => {
  const file = `${repo}src/client/index.ts`;
  const options: ts.CompilerOptions = {
    ...OPTIONS,
    strict: true,
    noUncheckedIndexedAccess: true,
    types: ['node'],
    // An example imports from the package, as a user's code does.
    baseUrl: repo,
    paths: { 'botflow-engine/client': ['src/client/index.ts'] },
  };
  const program = ts.createProgram([file], options);
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  const published = checker
    .getExportsOfModule(module)
    .filter((s) => !s.getJsDocTags(checker).some((t) => t.name === 'deprecated'))
    .map((s) => ({
      name: s.name,
      alias: s,
      target: s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s,
    }));
  const values = published.filter((p) => p.target.flags & ts.SymbolFlags.Value);
  // An example is on the declaration, or on the entry's export of the name (`export { /** … */ Scheduler }`).
  const examples = values.flatMap(({ name, alias, target }) =>
    [...alias.getJsDocTags(checker), ...(alias === target ? [] : target.getJsDocTags(checker))]
      .filter((t) => t.name === 'example')
      .map((t) => ({ name, code: ts.displayPartsToString(t.text).replace(/^```ts\n|\n?```$/g, '') })),
  );

  it('publishes what users call, a short list; the rest is deprecated until 0.4', () => {
    expect(published.length).toBeGreaterThan(30);
    expect(published.length).toBeLessThanOrEqual(50);
    const all = checker.getExportsOfModule(module).length;
    expect(all - published.length, 'deprecated re-exports (src/client/deprecated.ts)').toBe(163);
  });

  it('documents every name it publishes, each value with an example', () => {
    const doc = (s: ts.Symbol) => ts.displayPartsToString(s.getDocumentationComment(checker));
    // The declaration's doc (what an editor shows), or the entry's where the declaration's file is full.
    const bare = published.filter((p) => doc(p.target) === '' && doc(p.alias) === '');
    expect(bare.map((p) => p.name)).toEqual([]);
    const withExample = new Set(examples.map((e) => e.name));
    expect(values.filter((v) => !withExample.has(v.name)).map((v) => v.name)).toEqual([]);
  });

  it('has examples that compile against the entry, as a user writes them', () => {
    const sources = new Map(examples.map((e, i) => [`${repo}test/package/client-example-${i}.ts`, e]));
    const host = ts.createCompilerHost(options);
    const { getSourceFile, fileExists, readFile } = host;
    host.fileExists = (f) => sources.has(f) || fileExists.call(host, f);
    host.readFile = (f) => sources.get(f)?.code ?? readFile.call(host, f);
    host.getSourceFile = (f, ...rest) =>
      sources.has(f)
        ? ts.createSourceFile(f, sources.get(f)!.code, ts.ScriptTarget.ES2022, true)
        : getSourceFile.call(host, f, ...rest);
    const compiled = ts.createProgram([...sources.keys()], options, host, program);
    const problems = [...sources].flatMap(([f, e]) =>
      ts
        .getPreEmitDiagnostics(compiled, compiled.getSourceFile(f))
        .map((d) => `${e.name}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`),
    );
    expect(examples.length).toBeGreaterThanOrEqual(values.length);
    expect(problems).toEqual([]);
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
