/**
 * A project's registry loads as TypeScript or JavaScript, whatever its package.json says about modules;
 * TypeScript in a folder of ES modules is bundled (flows/bundle-code.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { importCode } from '../../src/flows/import-code.ts';
import { loadRegistry } from '../../src/flows/load.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-registry-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** botflow-engine as a project installs it: this package's own `exports` (ES modules only) over a stub. */
function installedEngine(): Record<string, string> {
  const { exports } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return {
    'node_modules/botflow-engine/package.json': JSON.stringify({
      name: 'botflow-engine',
      type: 'module',
      exports: { ...exports, '.': { ...exports['.'], import: './index.js' } },
    }),
    'node_modules/botflow-engine/index.js':
      'export const defineRegistry = (parts) => ({ validators: {}, guards: {}, effects: {}, ...parts });',
  };
}

const IMPORTS_ENGINE = `import { defineRegistry } from 'botflow-engine';
export default defineRegistry({ validators: { yes: () => true } });`;

const TS = `const upper: (v: unknown) => true | string = (v) => String(v) === String(v).toUpperCase() || 'shout';
export default { validators: { upper }, guards: {}, effects: {} };`;

describe('loadRegistry', () => {
  for (const [label, pkg] of [
    ['"type": "module"', '{"type":"module"}'],
    ['no "type"', '{}'],
    ['no package.json', undefined],
  ] as const) {
    it(`loads registry.ts with ${label}`, async () => {
      const dir = project({ 'registry.ts': TS, ...(pkg ? { 'package.json': pkg } : {}) });
      const { registry, problems } = await loadRegistry(dir);
      expect(problems).toEqual([]);
      expect(registry.validators.upper?.('HI', { vars: {}, locale: 'en', params: {}, now: 0 })).toBe(true);
      expect(registry.validators.upper?.('hi', { vars: {}, locale: 'en', params: {}, now: 0 })).toBe('shout');
    });
  }

  it('loads registry.js', async () => {
    const dir = project({
      'package.json': '{"type":"module"}',
      'registry.js': 'export default { validators: { yes: () => true }, guards: {}, effects: {} };',
    });
    const { registry, problems } = await loadRegistry(dir);
    expect(problems).toEqual([]);
    expect(Object.keys(registry.validators)).toEqual(['yes']);
  });

  it('reports a registry without a default export at its first line, with what to write', async () => {
    const dir = project({ 'registry.ts': 'export const nothing = 1;' });
    const { problems } = await loadRegistry(dir);
    expect(problems.map((p) => [p.message, p.hint])).toEqual([
      [
        'the registry has no default export made by defineRegistry()',
        "import { defineRegistry } from 'botflow-engine'; export default defineRegistry({ validators, guards, effects, tasks })",
      ],
    ]);
  });

  it('says what to do when the registry runs as CommonJS and so cannot import botflow-engine', async () => {
    const dir = project({
      ...installedEngine(),
      'package.json': '{"private":true}',
      'flows/registry.ts': IMPORTS_ENGINE,
    });
    const { problems } = await loadRegistry(join(dir, 'flows'));
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toMatch(
      /^the registry cannot be loaded: \S*registry\.ts runs as CommonJS \(\S*package\.json has no "type": "module"\), and botflow-engine is an ES module \(No "exports" main defined/,
    );
    expect(problems[0]?.hint).toMatch(
      /^add "type": "module" to \S*package\.json, or put a package\.json with \{"type": "module"\} in \S*flows\/$/,
    );
  });

  it('loads the same registry once either fix is made', async () => {
    const fixes: Record<string, string>[] = [
      { 'package.json': '{"private":true,"type":"module"}' },
      { 'package.json': '{"private":true}', 'flows/package.json': '{"type":"module"}' },
    ];
    for (const fix of fixes) {
      const dir = project({ ...installedEngine(), ...fix, 'flows/registry.ts': IMPORTS_ENGINE });
      const { registry, problems } = await loadRegistry(join(dir, 'flows'));
      expect(problems).toEqual([]);
      expect(Object.keys(registry.validators)).toEqual(['yes']);
    }
  });
});

describe('importCode (a TypeScript registry bundled by esbuild)', () => {
  const MODULE = { 'package.json': '{"type":"module"}' };

  it("bundles the project's .ts files and imports its packages as the modules Node loads", async () => {
    const dir = project({
      ...MODULE,
      ...installedEngine(),
      'flows/registry.ts': `import { defineRegistry } from 'botflow-engine';
import * as engine from 'botflow-engine';
import { upper } from './code/upper.js';
import { data } from './code/data.ts';
export const here = import.meta.url;
export { data, engine };
export default defineRegistry({ validators: { upper } });`,
      'flows/code/upper.ts': `export const upper = (v: unknown): true | string => String(v) === String(v).toUpperCase() || 'shout';`,
      'flows/code/data.ts': `import { readFileSync } from 'node:fs';
export const data: string = readFileSync(new URL('./data.txt', import.meta.url), 'utf8');`,
      'flows/code/data.txt': 'beside the code',
    });
    // Named by a file: URL, as Node takes it too.
    writeFileSync(
      join(dir, 'flows/index.ts'),
      `export * from '${pathToFileURL(join(dir, 'flows/registry.ts')).href}';\nexport { default } from './registry.ts';`,
    );
    const registry = await importCode(join(dir, 'flows/index.ts'));
    expect(registry.here).toBe(pathToFileURL(join(dir, 'flows/registry.ts')).href);
    expect(registry.data).toBe('beside the code');
    // botflow-engine is the package's own module, not a copy bundled with the registry.
    expect(registry.engine).toBe(
      await import(pathToFileURL(join(dir, 'node_modules/botflow-engine/index.js')).href),
    );
    const { validators } = registry.default as { validators: Record<string, (v: unknown) => unknown> };
    expect(validators.upper?.('hi')).toBe('shout');
  });

  it("names the project's .ts file and line in its code's stack traces", async () => {
    const dir = project({
      ...MODULE,
      'registry.ts': "import { fail } from './fail.ts';\nexport { fail };",
      'fail.ts': "\n\nexport function fail(): never {\n  throw new Error('from the project');\n}",
    });
    const { fail } = (await importCode(join(dir, 'registry.ts'))) as { fail: () => never };
    expect(() => fail()).toThrow(
      expect.objectContaining({ stack: expect.stringContaining(`${join(dir, 'fail.ts')}:4:`) }),
    );
  });

  it('imports unchanged code as the module already loaded, changed code afresh', async () => {
    const dir = project({ ...MODULE, 'registry.ts': 'export const made: object = {};' });
    const file = join(dir, 'registry.ts');
    const first = await importCode(file);
    expect(await importCode(file)).toBe(first);
    writeFileSync(file, 'export const made: object = { again: true };');
    expect((await importCode(file)).made).toEqual({ again: true });
  });

  it('runs code that threw again the next time (what it needed may be there now)', async () => {
    const dir = project({
      ...MODULE,
      'registry.ts': `if (!process.env.BOTFLOW_TEST_KEY) throw new Error('the key is not set');
export const key: string = process.env.BOTFLOW_TEST_KEY;`,
    });
    const file = join(dir, 'registry.ts');
    await expect(importCode(file)).rejects.toThrow('the key is not set');
    process.env.BOTFLOW_TEST_KEY = 'set';
    try {
      expect((await importCode(file)).key).toBe('set');
    } finally {
      delete process.env.BOTFLOW_TEST_KEY;
    }
  });

  it("says where the code does not compile or names a module that is not there, on the message's first line", async () => {
    const broken = project({ ...MODULE, 'registry.ts': 'export const x: number = ;' });
    await expect(importCode(join(broken, 'registry.ts'))).rejects.toThrow(
      /^Unexpected ";" \(\S*registry\.ts:1:26\)/,
    );
    const missing = project({ ...MODULE, 'registry.ts': "export { y } from './nowhere.ts';" });
    await expect(importCode(join(missing, 'registry.ts'))).rejects.toThrow(
      /^Could not resolve "\.\/nowhere\.ts" \(\S*registry\.ts:1:19\)/,
    );
  });
});
