/** Validators, guards and effects run on the engine's thread: a slow one is reported with its name. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFlows } from '../../src/flows/load.ts';
import { budgeted, defineRegistry, type SlowCall } from '../../src/flows/registry.ts';

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // a validator doing too much work
  }
}

const scope = { vars: {}, locale: 'en', params: {}, now: 0 };

describe('budgeted', () => {
  it('reports each call over the budget by kind and name, and passes results through', () => {
    const slow: SlowCall[] = [];
    const registry = budgeted(
      defineRegistry({
        validators: {
          quick: () => true,
          heavy: (v) => {
            busy(30);
            return v === 'ok' ? true : 'no';
          },
        },
        guards: {
          late: () => {
            busy(30);
            return false;
          },
        },
      }),
      10,
      (s) => slow.push(s),
    );
    expect(registry.validators.quick?.('x', scope)).toBe(true);
    expect(registry.validators.heavy?.('ok', scope)).toBe(true);
    expect(registry.guards.late?.(scope)).toBe(false);
    expect(slow.map((s) => `${s.kind}:${s.name}`)).toEqual(['validator:heavy', 'guard:late']);
    expect(slow[0]?.ms).toBeGreaterThanOrEqual(30);
    expect(slow[0]?.budgetMs).toBe(10);
  });

  it('reports a slow call that throws, and rethrows', () => {
    const slow: SlowCall[] = [];
    const registry = budgeted(
      defineRegistry({
        validators: {
          broken: () => {
            busy(20);
            throw new Error('boom');
          },
        },
      }),
      5,
      (s) => slow.push(s),
    );
    expect(() => registry.validators.broken?.('x', scope)).toThrow('boom');
    expect(slow).toHaveLength(1);
  });

  it('is applied by loadFlows to the registry the flows are compiled with', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-budget-'));
    writeFileSync(
      join(dir, 'registry.ts'),
      `export default { validators: { heavy: () => { const t = performance.now() + 25; while (performance.now() < t) {} return true; } }, guards: {}, effects: {} };\n`,
    );
    const slow: SlowCall[] = [];
    const result = await loadFlows(dir, { codeBudget: { ms: 5, report: (s) => slow.push(s) } });
    expect(result.problems).toEqual([]);
    result.registry?.validators.heavy?.('x', scope);
    expect(slow.map((s) => s.name)).toEqual(['heavy']);
  });
});
