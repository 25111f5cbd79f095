/**
 * The house's floors: every import between folders of src/ points to a lower floor, so no folder depends
 * on one above it and there are no circles between folders. No file is exempt: the package's entry files
 * (package.json's `exports`: `src/index.ts`, `src/client/index.ts`, …) follow the same rule, so each
 * subpath publishes its own floor and the floors below it. Inside `store/`, `client/`, `flows/` and
 * `sandbox/`, the sub-folders have floors of their own (INNER_FLOORS). Files inside one folder may import
 * each other, but without circles. Read from the code's own import statements, as `tsc` resolves them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, string | { import: string }>;
};

/** The package's entry files (`botflow-engine`, `botflow-engine/client`, …) as sources in src/. */
const ENTRIES = Object.values(PACKAGE.exports).flatMap((e) =>
  typeof e === 'string' ? [] : [join(SRC, e.import.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'))],
);

/**
 * Top to bottom. A folder may import the folders below it (any distance), never one above or beside it on
 * the same floor. The pipeline words are the floors from intake down to client.
 */
const FLOORS: readonly (readonly string[])[] = [
  ['cli.ts', 'index.ts'],
  ['cli'],
  // The editors' language server and service (botflow lsp, the playground's editor): over the checks,
  // the transcripts and the configuration.
  ['lsp'],
  ['testing'],
  ['runtime'],
  ['sandbox'],
  ['intake'],
  ['engine'],
  ['engine/campaigns'],
  ['engine/lane'],
  ['engine/commit', 'flows'],
  ['engine/step'],
  ['inbox'],
  ['dispatch'],
  ['client'],
  ['store'],
  ['errors'],
];

/**
 * Inside a folder, top to bottom as FLOORS. A part is a sub-folder (`store/ports`), the folder's own files
 * (`store`), or one file of the folder's root named alone (`store/open.ts`) where it sits on another floor
 * than its neighbours (the files named on one floor may import each other). An import between two parts of
 * one folder points to a lower floor.
 */
const INNER_FLOORS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  store: [
    // The doors: open a database (or a reader) of either kind.
    ['store/open.ts', 'store/reader.ts'],
    // SQLite's adapter, over SQLite's table files.
    ['store/sqlite'],
    // SQLite's table files (store/*.ts) and PostgreSQL's adapter side by side: neither imports the other.
    ['store', 'store/postgres'],
    // The campaigns' queries, written once for both dialects (and SQLite's campaign port).
    ['store/campaigns'],
    // What both adapters share: the ports, the rows, the shared errors and helpers.
    ['store/ports'],
  ],
  client: [
    // The door (botflow-engine/client).
    ['client/index.ts', 'client/deprecated.ts'],
    // The rate-limit scheduler, over the client.
    ['client/scheduler'],
    ['client'],
    // The platform's types and their decoders.
    ['client/schemas'],
  ],
  flows: [
    ['flows'],
    // Understanding typed answers (dates, options, keywords).
    ['flows/understand'],
    // The schema's building blocks that understanding reads.
    ['flows/schema-intents.ts', 'flows/schema-parts.ts', 'flows/tags.ts', 'flows/safe-regex.ts'],
  ],
  sandbox: [
    // The doors: the sandbox's server, its start, the control client a test drives, the operators' chats.
    [
      'sandbox/index.ts',
      'sandbox/app.ts',
      'sandbox/start.ts',
      'sandbox/control-client.ts',
      'sandbox/operators-chat.ts',
    ],
    // The control API (people write, the sandbox's views), then the Bot API's routes.
    ['sandbox/control'],
    ['sandbox/routes'],
    // The platform's model and its helpers.
    ['sandbox'],
    // Delivering updates: webhook and long polling.
    ['sandbox/delivery'],
    // The state itself.
    ['sandbox/state.ts', 'sandbox/ids.ts', 'sandbox/markup.ts'],
    // The web chat's static plugin.
    ['sandbox/web'],
  ],
};

/**
 * Back-imports inside a folder that stay for now, each named. TODO(issue 37): move what they take to the
 * part below (see each line), then delete the line.
 */
const ALLOWED_INNER: readonly string[] = [
  // DeadLetterError is an error of the client: it belongs in client/errors.ts (re-exported by the
  // scheduler). Left while client/scheduler/ is being reworked (campaign priorities).
  'client/upload.ts -> client/scheduler/types.ts',
];

/** The folder a file of src/ belongs to: its first folder, or `engine/<part>` inside the engine. */
function folderOf(file: string): string {
  const parts = relative(SRC, file).split('/');
  if (parts.length === 1) return parts[0]!;
  if (parts[0] === 'engine' && parts.length > 2) return `engine/${parts[1]}`;
  return parts[0]!;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|mjs)$/.test(e.name) ? [path] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Every relative import of src/: [from file, to file]. */
function imports(): [string, string][] {
  return sources(SRC).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m): [string, string] => [
      file,
      normalize(join(dirname(file), (m[1] ?? m[2])!)),
    ]),
  );
}

const floor = (folder: string) => FLOORS.findIndex((f) => f.includes(folder));

/**
 * Sub-folders that are the folder's own files gathered, not a floor: a step kind's folder (flows/kinds/) is
 * the flows layer itself (its modules use the flows' walker, graph builder and state parts, and the flows'
 * walks ask the kinds' registry), so only the rule against file circles applies between them.
 */
const GATHERED: readonly string[] = ['flows/kinds'];

/** The part of its folder a file belongs to (see INNER_FLOORS), or undefined outside those folders. */
function partOf(file: string): string | undefined {
  const path = relative(SRC, file);
  if (GATHERED.some((g) => path.startsWith(`${g}/`))) return path.split('/')[0];
  const parts = path.split('/');
  const floors = INNER_FLOORS[parts[0]!];
  if (!floors || parts.length === 1) return undefined;
  if (floors.some((f) => f.includes(path))) return path;
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0];
}

const innerFloor = (part: string) => INNER_FLOORS[part.split('/')[0]!]!.findIndex((f) => f.includes(part));

/** The imports of `pairs` between two parts of one folder that go to the same floor or above. */
function upwardInside(pairs: readonly [string, string][]): string[] {
  return pairs
    .filter(([a, b]) => {
      const [from, to] = [partOf(a), partOf(b)];
      if (!from || !to || from === to || from.split('/')[0] !== to.split('/')[0]) return false;
      if (innerFloor(to) === innerFloor(from) && from.endsWith('.ts') && to.endsWith('.ts')) return false;
      return innerFloor(to) <= innerFloor(from);
    })
    .map(([a, b]) => `${relative(SRC, a)} -> ${relative(SRC, b)}`);
}

/** The imports of `pairs` that go to a folder on the same floor or above: none is allowed, from any file. */
function upward(pairs: readonly [string, string][]): string[] {
  return pairs
    .filter(([a, b]) => folderOf(a) !== folderOf(b) && floor(folderOf(b)) <= floor(folderOf(a)))
    .map(([a, b]) => `${relative(SRC, a)} -> ${relative(SRC, b)}`);
}

describe('the layers of src/', () => {
  const all = imports();

  it('knows the floor of every folder', () => {
    const unknown = [...new Set(all.flatMap(([a, b]) => [folderOf(a), folderOf(b)]))].filter(
      (f) => floor(f) < 0,
    );
    expect(unknown, 'add new folders to FLOORS in test/architecture/layers.test.ts').toEqual([]);
  });

  it('imports only folders on lower floors', () => {
    expect(upward(all)).toEqual([]);
  });

  it('knows the floor of every part of store/, client/, flows/ and sandbox/', () => {
    const parts = new Set(all.flatMap(([a, b]) => [partOf(a), partOf(b)]).filter((p) => p !== undefined));
    const unknown = [...parts].filter((p) => innerFloor(p) < 0);
    expect(unknown, 'add new sub-folders to INNER_FLOORS in test/architecture/layers.test.ts').toEqual([]);
  });

  it('imports inside a folder only parts on lower floors', () => {
    const found = upwardInside(all);
    expect(found.filter((i) => !ALLOWED_INNER.includes(i))).toEqual([]);
    // An allowance no longer needed goes: the list only shrinks.
    expect(ALLOWED_INNER.filter((i) => !found.includes(i))).toEqual([]);
  });

  it('keeps the PostgreSQL adapter off SQLite: it imports no file that uses better-sqlite3', () => {
    const sqlite = (file: string) => /from\s*['"]better-sqlite3['"]/.test(readFileSync(file, 'utf8'));
    const postgres = join(SRC, 'store', 'postgres');
    const found = all
      .filter(([a, b]) => dirname(a) === postgres && dirname(b) !== postgres && sqlite(b))
      .map(([a, b]) => `${relative(SRC, a)} -> ${relative(SRC, b)}`);
    expect(found).toEqual([]);
  });

  it('has no import circle between files', () => {
    const edges = new Map<string, string[]>();
    for (const [a, b] of all) edges.set(a, [...(edges.get(a) ?? []), b]);
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const next of edges.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of edges.keys()) visit(file, []);
    expect(circles).toEqual([]);
  });

  it('keeps every source file under 400 lines (split a longer one by idea)', () => {
    const long = sources(SRC)
      .map((file) => ({
        file: relative(SRC, file),
        lines: readFileSync(file, 'utf8').split('\n').length - 1,
      }))
      .filter((f) => f.lines > 400);
    expect(long).toEqual([]);
  });

  it('checks the package entry files like any other file', () => {
    expect(ENTRIES).toContain(join(SRC, 'index.ts'));
    expect(ENTRIES).toContain(join(SRC, 'client', 'index.ts'));
    const checked = new Set(all.map(([a]) => a));
    for (const entry of ENTRIES) expect(checked.has(entry), relative(SRC, entry)).toBe(true);
  });

  it('fails on an upward import (the check itself works)', () => {
    const at = (path: string) => join(SRC, path);
    expect(upward([[at('store/x.ts'), at('engine/step/y.ts')]])).toEqual(['store/x.ts -> engine/step/y.ts']);
    // An entry file is no exception: the client's door re-exporting a scheduler kept in dispatch/ fails.
    expect(upward([[at('client/index.ts'), at('dispatch/scheduler/index.ts')]])).toEqual([
      'client/index.ts -> dispatch/scheduler/index.ts',
    ]);
    // Same floor, different folder: fails too; within one folder, and downward, passes.
    expect(upward([[at('engine/commit/a.ts'), at('flows/b.ts')]])).toHaveLength(1);
    expect(upward([[at('client/index.ts'), at('client/scheduler/index.ts')]])).toEqual([]);
    expect(upward([[at('engine/engine.ts'), at('client/scheduler/types.ts')]])).toEqual([]);
    // Inside a folder: the ports take nothing from SQLite's table files, PostgreSQL's adapter neither;
    // SQLite's adapter may; a sub-folder's file is no door.
    expect(upwardInside([[at('store/ports/rows.ts'), at('store/sessions.ts')]])).toHaveLength(1);
    expect(upwardInside([[at('store/postgres/x.ts'), at('store/sessions.ts')]])).toHaveLength(1);
    expect(upwardInside([[at('store/postgres/x.ts'), at('store/sqlite/apply.ts')]])).toHaveLength(1);
    expect(upwardInside([[at('store/sqlite/apply.ts'), at('store/sessions.ts')]])).toEqual([]);
    expect(upwardInside([[at('store/postgres/x.ts'), at('store/ports/rows.ts')]])).toEqual([]);
    expect(upwardInside([[at('client/scheduler/a.ts'), at('client/index.ts')]])).toHaveLength(1);
    expect(upwardInside([[at('flows/understand/a.ts'), at('flows/lint.ts')]])).toHaveLength(1);
    expect(upwardInside([[at('flows/understand/a.ts'), at('flows/tags.ts')]])).toEqual([]);
  });
});
