// The public API, one report per package entry (package.json `exports`): every name the entry exports, with
// its kind and declared signature, sorted, as text. The reports are committed in api/; the test
// test/architecture/api-report.test.ts compares them with the code, so a change of the public API shows in
// a diff and is reviewed. `npm run api:update` rewrites them (`--check`: exit 1 when one differs).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const API_DIR = join(ROOT, 'api');

/** One package entry: its subpath (`./client`), its source file and its report's file name. */
export interface Entry {
  subpath: string;
  source: string;
  report: string;
}

/** The entries of package.json `exports`, with the sources they are built from. */
export function entries(): Entry[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { import: string }>;
  };
  return Object.entries(pkg.exports).flatMap(([subpath, target]) => {
    if (typeof target === 'string') return [];
    const source = join(ROOT, 'src', target.import.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
    const name = subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-');
    return [{ subpath, source, report: `${name}.api.md` }];
  });
}

const FLAGS =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType |
  ts.TypeFormatFlags.WriteArrowStyleSignature;

const SHORT = FLAGS & ~ts.TypeFormatFlags.NoTruncation;

/** A declaration's text from the source, comments out and whitespace collapsed. */
function sourceText(node: ts.Node): string {
  const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
  return printer
    .printNode(ts.EmitHint.Unspecified, node, node.getSourceFile())
    .replace(/\s+/g, ' ')
    .replace(/^export (default )?(declare )?/, '');
}

/** Whether the symbol's doc comment (or its export's, `export { /** @deprecated *\/ name }`) says `@deprecated`. */
function deprecated(checker: ts.TypeChecker, symbol: ts.Symbol): boolean {
  return symbol.getJsDocTags(checker).some((tag) => tag.name === 'deprecated');
}

/** A member's line: `name: type` as declared (the checker's type where none is written). */
function memberText(checker: ts.TypeChecker, p: ts.Symbol, at: ts.Node): string {
  const optional = p.flags & ts.SymbolFlags.Optional ? '?' : '';
  const decl = p.valueDeclaration ?? p.declarations?.[0];
  const isStatic = decl && ts.getCombinedModifierFlags(decl) & ts.ModifierFlags.Static ? 'static ' : '';
  const readonly = decl && ts.getCombinedModifierFlags(decl) & ts.ModifierFlags.Readonly ? 'readonly ' : '';
  const written =
    decl && (ts.isPropertySignature(decl) || ts.isPropertyDeclaration(decl)) ? decl.type : undefined;
  const type = written
    ? sourceText(written)
    : checker.typeToString(checker.getTypeOfSymbolAtLocation(p, at), at, FLAGS);
  return `  ${isStatic}${readonly}${p.name}${optional}: ${type};`;
}

/** The public members declared by `symbol` itself (inherited ones show in its base), sorted. */
function members(
  checker: ts.TypeChecker,
  symbol: ts.Symbol,
  props: readonly ts.Symbol[],
  at: ts.Node,
): string[] {
  const own = new Set<ts.Node>(symbol.declarations ?? []);
  return props
    .filter((p) => !p.name.startsWith('#') && !p.name.startsWith('__'))
    .filter((p) => (p.declarations ?? []).some((d) => own.has(d.parent)))
    .filter((p) => {
      const decl = p.valueDeclaration ?? p.declarations?.[0];
      const mods = decl ? ts.getCombinedModifierFlags(decl) : 0;
      return (mods & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0;
    })
    .map((p) => memberText(checker, p, at))
    .sort();
}

/** The type parameters of a generic declaration, as written (`<Op extends OperationName>`), or ''. */
function typeParams(symbol: ts.Symbol): string {
  const decl = symbol.declarations?.find(
    (d) => ts.isClassDeclaration(d) || ts.isInterfaceDeclaration(d) || ts.isTypeAliasDeclaration(d),
  ) as ts.ClassDeclaration | ts.InterfaceDeclaration | ts.TypeAliasDeclaration | undefined;
  const params = decl?.typeParameters;
  return params ? `<${params.map((p) => sourceText(p)).join(', ')}>` : '';
}

/** `extends …` of a class or interface, as written. */
function heritage(symbol: ts.Symbol): string {
  const clauses = (symbol.declarations ?? []).flatMap((d) =>
    ts.isClassDeclaration(d) || ts.isInterfaceDeclaration(d) ? (d.heritageClauses ?? []) : [],
  );
  return clauses.map((c) => ` ${sourceText(c).trim()}`).join('');
}

/** The first declaration of `symbol` that `is` accepts, if any. */
function declOf<T extends ts.Node>(symbol: ts.Symbol, is: (node: ts.Node) => node is T): T | undefined {
  for (const d of symbol.declarations ?? []) if (is(d)) return d;
  return undefined;
}

/** A class: its base, constructors and public members (instance and static). */
function classText(checker: ts.TypeChecker, name: string, symbol: ts.Symbol, decl: ts.Node): string[] {
  const type = checker.getTypeOfSymbolAtLocation(symbol, decl);
  const ctors = type
    .getConstructSignatures()
    .map((s) => `  constructor${checker.signatureToString(s, decl, FLAGS).replace(/ => [\s\S]*$/, '')};`);
  const instance = checker.getDeclaredTypeOfSymbol(symbol);
  const props = [...checker.getPropertiesOfType(instance), ...checker.getPropertiesOfType(type)];
  return [
    `class ${name}${typeParams(symbol)}${heritage(symbol)} {`,
    ...ctors,
    ...members(checker, symbol, props, decl),
    '}',
  ];
}

/** Every meaning of one exported name (a value, a type, or both) as the report shows it. */
function describe(checker: ts.TypeChecker, name: string, exported: ts.Symbol): string {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const mark = deprecated(checker, exported) || deprecated(checker, symbol) ? '/** @deprecated */ ' : '';
  const lines: string[] = [];
  const at = symbol.declarations?.[0];
  if (!at) return `${mark}${name}: unknown`;
  const f = symbol.flags;
  if (f & ts.SymbolFlags.Class) lines.push(...classText(checker, name, symbol, at));
  if (f & ts.SymbolFlags.Function) {
    for (const s of checker.getTypeOfSymbolAtLocation(symbol, at).getCallSignatures()) {
      lines.push(`function ${name}${checker.signatureToString(s, at, FLAGS).replace(/ => /, ': ')};`);
    }
  }
  if (f & ts.SymbolFlags.Variable) {
    // The type as written; else as inferred, abbreviated (a zod schema's inferred type runs for pages).
    const decl = declOf(symbol, ts.isVariableDeclaration);
    const inferred = () => checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, at), at, SHORT);
    lines.push(`const ${name}: ${decl?.type ? sourceText(decl.type) : inferred()};`);
  }
  if (f & ts.SymbolFlags.Interface) {
    const props = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol));
    lines.push(
      `interface ${name}${typeParams(symbol)}${heritage(symbol)} {`,
      ...members(checker, symbol, props, at),
      '}',
    );
  }
  if (f & ts.SymbolFlags.TypeAlias) {
    const decl = declOf(symbol, ts.isTypeAliasDeclaration);
    lines.push(
      `type ${name}${typeParams(symbol)} = ${decl ? sourceText(decl.type) : checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol), at, FLAGS)};`,
    );
  }
  if (f & ts.SymbolFlags.Enum) lines.push(`enum ${name}`);
  if (f & ts.SymbolFlags.Module) lines.push(`namespace ${name}`);
  if (lines.length === 0) lines.push(`${name}: ${f}`);
  // A type the entry does not name shows as import("/abs/path").Name: the name is enough, the path is not stable.
  return mark + lines.join('\n').replace(/import\("[^"]*"\)\./g, '');
}

/** The report of `entry`, as committed in api/. */
function report(program: ts.Program, entry: Entry): string {
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(entry.source);
  const module = file && checker.getSymbolAtLocation(file);
  if (!module) throw new Error(`${relative(ROOT, entry.source)}: not a module the compiler knows`);
  const described = checker
    .getExportsOfModule(module)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((symbol) => describe(checker, symbol.name, symbol));
  const gone = described.filter((d) => d.startsWith('/** @deprecated')).length;
  const count =
    gone > 0
      ? `${described.length}: ${described.length - gone} published, ${gone} deprecated`
      : described.length;
  const title = entry.subpath === '.' ? 'botflow-engine' : `botflow-engine/${entry.subpath.slice(2)}`;
  return [
    `# API report: \`${title}\``,
    '',
    `Every name \`${title}\` exports (${count}), its kind and declared signature, from`,
    `\`${relative(ROOT, entry.source)}\`. Generated by \`npm run api:update\`: do not edit. A change here is a change`,
    'of the public API: review it (and note it in CHANGELOG.md).',
    '',
    '```ts',
    ...described,
    '```',
    '',
  ].join('\n');
}

/** Every entry's report: file name → text. */
export function apiReports(): Map<string, string> {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const all = entries();
  const program = ts.createProgram({
    rootNames: all.map((e) => e.source),
    options: { ...options, noEmit: true },
  });
  return new Map(all.map((e) => [e.report, report(program, e)]));
}

/** The reports that differ from the committed ones (missing files included). */
export function staleReports(reports = apiReports()): string[] {
  return [...reports]
    .filter(([name, text]) => {
      try {
        return readFileSync(join(API_DIR, name), 'utf8') !== text;
      } catch {
        return true;
      }
    })
    .map(([name]) => name);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const reports = apiReports();
  if (process.argv.includes('--check')) {
    const stale = staleReports(reports);
    if (stale.length > 0) {
      console.error(
        `the public API changed: ${stale.join(', ')}. Run \`npm run api:update\` and commit api/.`,
      );
      process.exit(1);
    }
  } else {
    mkdirSync(API_DIR, { recursive: true });
    for (const [name, text] of reports) writeFileSync(join(API_DIR, name), text);
    console.error(`wrote ${reports.size} API reports to api/`);
  }
}
