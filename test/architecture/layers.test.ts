/**
 * The house's floors: every import between folders of src/ points to a lower floor, so no folder depends
 * on one above it and there are no circles between folders. No file is exempt: the package's entry files
 * (package.json's `exports`: `src/index.ts`, `src/client/index.ts`, …) follow the same rule, so each
 * subpath publishes its own floor and the floors below it. Files inside one folder may import each other,
 * but without circles. Read from the code's own import statements, as `tsc` resolves them.
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
  });
});
