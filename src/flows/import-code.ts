/**
 * Loads the programmers' code a project points botflow at (`flows/registry.ts`, `--registry <file>`):
 * TypeScript bundled by esbuild into one plain JavaScript module (bundle-code.ts: no loader thread), so a
 * user's `.ts` file runs with the compiled botflow package and no loader of their own; in a folder that
 * runs as CommonJS, through tsx's scoped loader, as Node would run it; JavaScript with a plain `import()`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { importBundled } from './bundle-code.ts';

const TYPESCRIPT = /\.(ts|mts|cts|tsx)$/;

/**
 * Imports the module at `file` (an absolute path) and returns its namespace. A TypeScript file in a folder
 * whose package.json does not say `"type": "module"` is compiled to CommonJS; its `export default` then
 * arrives wrapped once more (`default.default`), and is unwrapped here so both folders behave alike.
 */
export async function importCode(file: string): Promise<Record<string, unknown>> {
  try {
    const url = pathToFileURL(file).href;
    if (!TYPESCRIPT.test(file)) return (await import(url)) as Record<string, unknown>;
    if (runsAsModule(file)) return await importBundled(file);
    const { tsImport } = await import('tsx/esm/api');
    const namespace = (await tsImport(url, import.meta.url)) as Record<string, unknown>;
    const inner = namespace.default as Record<string, unknown> | undefined;
    return inner && typeof inner === 'object' && '__esModule' in inner ? inner : namespace;
  } catch (error) {
    throw commonJsTrouble(file, error) ?? error;
  }
}

/** True for a TypeScript file Node would run as an ES module (`.mts`; `.ts` in a `"type": "module"` folder). */
function runsAsModule(file: string): boolean {
  if (file.endsWith('.mts')) return true;
  return !file.endsWith('.cts') && packageScope(dirname(file))?.type === 'module';
}

/** The errors of a CommonJS `require` that meets an ES module (botflow-engine is one, and only one). */
const REQUIRED_AN_ES_MODULE = new Set(['ERR_PACKAGE_PATH_NOT_EXPORTED', 'ERR_REQUIRE_ESM']);

/**
 * Node's words for code that runs as CommonJS (the folder's package.json has no `"type": "module"`, npm's
 * default) and so cannot import botflow-engine ("No "exports" main defined"), replaced by why, with what
 * to do as the error's `hint`.
 */
function commonJsTrouble(file: string, error: unknown): Error | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !REQUIRED_AN_ES_MODULE.has(code)) return undefined;
  const scope = packageScope(dirname(file));
  if (scope?.type === 'module') return undefined;
  const where = scope ? relative(process.cwd(), scope.file) || scope.file : undefined;
  const why = where ? `${where} has no "type": "module"` : 'no package.json above it says "type": "module"';
  const folder = `${relative(process.cwd(), dirname(file)) || '.'}/`;
  return Object.assign(
    new Error(
      `${relative(process.cwd(), file) || file} runs as CommonJS (${why}), and ` +
        `botflow-engine is an ES module (${(error as Error).message.split('\n')[0]})`,
      { cause: error },
    ),
    {
      hint: `add "type": "module" to ${where ?? "the project's package.json"}, or put a package.json with {"type": "module"} in ${folder}`,
    },
  );
}

/** The nearest package.json at or above `dir`, and its `type`. */
function packageScope(dir: string): { file: string; type: unknown } | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const file = join(at, 'package.json');
    if (existsSync(file)) {
      try {
        return { file, type: (JSON.parse(readFileSync(file, 'utf8')) as { type?: unknown }).type };
      } catch {
        return { file, type: undefined };
      }
    }
    if (dirname(at) === at) return undefined;
  }
}
