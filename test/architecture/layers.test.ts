/**
 * The house's floors: every import between folders of src/ points to a lower floor, so no folder depends
 * on one above it and there are no circles between folders. Files inside one folder may import each other,
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

/**
 * The package's doors (`botflow-engine`, `botflow-engine/client`, …: the entries of package.json's
 * `exports`): each gathers a public API from wherever it lives, so a door may import any floor. Nothing
 * else may.
 */
const DOORS = new Set(
  Object.values(PACKAGE.exports).flatMap((e) =>
    typeof e === 'string' ? [] : [join(SRC, e.import.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'))],
  ),
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
  ['engine/lane'],
  ['engine/commit', 'flows'],
  ['engine/step'],
  ['inbox'],
  ['dispatch'],
  ['client'],
  ['store'],
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

describe('the layers of src/', () => {
  const all = imports();

  it('knows the floor of every folder', () => {
    const unknown = [...new Set(all.flatMap(([a, b]) => [folderOf(a), folderOf(b)]))].filter(
      (f) => floor(f) < 0,
    );
    expect(unknown, 'add new folders to FLOORS in test/architecture/layers.test.ts').toEqual([]);
  });

  it('imports only folders on lower floors', () => {
    const upward = all
      .filter(
        ([a, b]) => !DOORS.has(a) && folderOf(a) !== folderOf(b) && floor(folderOf(b)) <= floor(folderOf(a)),
      )
      .map(([a, b]) => `${relative(SRC, a)} -> ${relative(SRC, b)}`);
    expect(upward).toEqual([]);
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

  it('finds the package doors in src/', () => {
    expect(DOORS.has(join(SRC, 'client', 'index.ts'))).toBe(true);
    expect(DOORS.has(join(SRC, 'index.ts'))).toBe(true);
  });

  it('fails on an upward import (the check itself works)', () => {
    const a = join(SRC, 'store', 'x.ts');
    const b = join(SRC, 'engine', 'step', 'y.ts');
    expect(floor(folderOf(b)) <= floor(folderOf(a))).toBe(true);
  });
});
