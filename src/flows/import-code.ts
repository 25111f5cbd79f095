/**
 * Loads the programmers' code a project points botflow at (`flows/registry.ts`, `--registry <file>`):
 * TypeScript through tsx's scoped loader, so a user's `.ts` file runs with the compiled botflow package
 * and no loader of their own; JavaScript with a plain `import()`.
 */
import { pathToFileURL } from 'node:url';

const TYPESCRIPT = /\.(ts|mts|cts|tsx)$/;

/**
 * Imports the module at `file` (an absolute path) and returns its namespace. A TypeScript file in a folder
 * whose package.json does not say `"type": "module"` is compiled to CommonJS; its `export default` then
 * arrives wrapped once more (`default.default`), and is unwrapped here so both folders behave alike.
 */
export async function importCode(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  if (!TYPESCRIPT.test(file)) return (await import(url)) as Record<string, unknown>;
  const { tsImport } = await import('tsx/esm/api');
  const namespace = (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  const inner = namespace.default as Record<string, unknown> | undefined;
  return inner && typeof inner === 'object' && '__esModule' in inner ? inner : namespace;
}
