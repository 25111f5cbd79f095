/** A project's registry loads as TypeScript or JavaScript, whatever its package.json says about modules. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
