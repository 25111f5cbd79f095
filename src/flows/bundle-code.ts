/**
 * A project's TypeScript code (its registry and the `.ts` files it imports) made into one JavaScript
 * module with esbuild and imported as plain JavaScript: no loader hooks, so no loader thread (tsx's costs
 * a second V8 isolate, ~45 MB, for the life of the process). Only the project's `.ts` (and `.json`) files
 * are bundled; everything else it imports (botflow-engine, other packages, `.js` files, Node's modules)
 * stays an import of the file Node would load, by its absolute URL, so botflow's modules are the ones
 * already loaded, never a second copy. Importing unchanged code again (the same bundle) is the module
 * already loaded; a changed registry adds one small module, not a copy of everything it imports.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Message, Plugin } from 'esbuild';

/** Bundled into the module: the project's TypeScript and the JSON it reads. */
const BUNDLED = /\.(ts|mts|cts|tsx|json)$/;
const RESOLVING = Symbol('resolving');

/**
 * `import.meta.url` (and `dirname`, `filename`) are the bundled file's own, not the bundle's, so code that
 * reads a file beside itself still finds it.
 */
function ownMeta(file: string, text: string): string {
  const url = pathToFileURL(file).href;
  return text
    .replace(/\bimport\.meta\.url\b/g, JSON.stringify(url))
    .replace(/\bimport\.meta\.filename\b/g, JSON.stringify(file))
    .replace(/\bimport\.meta\.dirname\b/g, JSON.stringify(join(file, '..')));
}

const projectCode: Plugin = {
  name: 'botflow-project-code',
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.kind === 'entry-point' || args.pluginData === RESOLVING) return undefined;
      // A file: URL, as Node takes it (esbuild's resolver reads paths).
      const path = args.path.startsWith('file:') ? fileURLToPath(args.path) : args.path;
      const found = await build.resolve(path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: RESOLVING,
      });
      if (found.errors.length > 0 || found.external || BUNDLED.test(found.path)) return found;
      return { path: pathToFileURL(found.path).href, external: true };
    });
    build.onLoad({ filter: /\.(ts|mts|cts|tsx)$/ }, (args) => ({
      contents: ownMeta(args.path, readFileSync(args.path, 'utf8')),
      loader: args.path.endsWith('.tsx') ? 'tsx' : 'ts',
    }));
  },
};

let building = 0;

/** esbuild's failure as Node's would read: the first error, where it is, on the first line. */
function buildError(error: unknown): unknown {
  const first = (error as { errors?: Message[] } | null)?.errors?.[0];
  if (!first) return error;
  const at = first.location
    ? ` (${first.location.file}:${first.location.line}:${first.location.column + 1})`
    : '';
  return Object.assign(new Error(`${first.text}${at}`, { cause: error }), { code: 'ERR_BUNDLE' });
}

/** esbuild's service process, started for a build and stopped after the last one running ends. */
async function bundle(file: string): Promise<string> {
  const esbuild = await import('esbuild');
  building++;
  try {
    const result = await esbuild.build({
      entryPoints: [file],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      // Node's conditions (esbuild's default adds `module`, which Node does not read).
      conditions: ['node'],
      target: `node${process.versions.node}`,
      sourcemap: 'inline',
      logLevel: 'silent',
      plugins: [projectCode],
    });
    return result.outputFiles[0]?.text ?? '';
  } catch (error) {
    throw buildError(error);
  } finally {
    if (--building === 0) await esbuild.stop();
  }
}

let sourceMaps = true;

/**
 * Whether importing a bundle turns on Node's source maps (on by default), so that the stack traces of the
 * project's code name its `.ts` files and lines. Node then also reads the source maps of every module
 * loaded after it (~5 MB in botflow lsp, which shows no stack trace of the project's code: it turns it off).
 */
export function mapBundledStacks(on: boolean): void {
  sourceMaps = on;
}

/** The bundles imported, by the hash of their text: the same code is the same module. */
const imported = new Map<string, Promise<Record<string, unknown>>>();

/**
 * Imports the TypeScript module at `file` (an absolute path) as one bundled module. A module that threw
 * is forgotten, so the same code is run afresh next time (an environment variable set since, a database
 * reachable again).
 */
export async function importBundled(file: string): Promise<Record<string, unknown>> {
  const text = await bundle(file);
  const hash = createHash('sha256').update(file).update('\0').update(text).digest('hex');
  let namespace = imported.get(hash);
  if (!namespace) {
    namespace = importText(text);
    imported.set(hash, namespace);
    namespace.catch(() => imported.delete(hash));
  }
  return namespace;
}

/**
 * Imports a module's text from a file of a new temporary folder, removed once imported (Node keeps the
 * text; the stack traces of its code point at the project's files through the inline source map).
 */
async function importText(text: string): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-code-'));
  try {
    const out = join(dir, 'code.mjs');
    writeFileSync(out, text);
    if (sourceMaps) process.setSourceMapsEnabled(true);
    return (await import(pathToFileURL(out).href)) as Record<string, unknown>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
