/** A project's registry loads as TypeScript or JavaScript, whatever its package.json says about modules. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRegistry } from '../../src/flows/load.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-registry-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

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
});
