/** `botflow check` as a person runs it: the problems it prints and its exit code. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FLOW = `flow: shop
start: pick
steps:
  pick:
    type: input
    say: Which pizza?
    input: text
    validate:
      - { rule: not_disposable }
    retries: { max: 2, exhausted: { goto: bye } }
    save: pizza
    next: order
  order:
    type: message
    say: Ordering…
    do:
      - task: order_pizza
        input: { pizza: "{{pizza}}" }
        on_error: { say: "Sorry.", goto: bye }
    next:
      - { when: { guard: is_vip }, goto: bye }
      - { goto: bye }
  bye:
    type: end
    do: [{ effect: notify_kitchen }]
`;

function checkDir(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-check-cli-'));
  mkdirSync(join(dir, 'locales'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const r = spawnSync(process.execPath, ['bin/botflow.js', 'check', dir, '--campaigns', join(dir, 'none')], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe('botflow check', () => {
  it('a registry that fails to load is one error: the unknown names it would hold are folded under it', () => {
    const { status, out } = checkDir({
      'shop.flow.yaml': FLOW,
      'registry.ts': "throw new Error('the kitchen API key is not set');\n",
    });
    expect(status).toBe(1);
    expect(out).toMatch(
      /registry\.ts:1:1: error: the registry cannot be loaded: the kitchen API key is not set \(so 4 error\(s\) about the names the flows take from it are not shown: not_disposable, order_pizza, is_vip, notify_kitchen; fix the registry, then check again\)/,
    );
    expect(out).not.toContain('unknown task');
    expect(out).not.toContain('unknown validator');
    expect(out).toContain('1 error(s)');
  }, 30_000);

  it('with the registry loaded, the same names are checked one by one', () => {
    const { status, out } = checkDir({
      'shop.flow.yaml': FLOW,
      'registry.ts': `export default { validators: {}, guards: {}, effects: {}, tasks: { order_pizza: () => 1 } };\n`,
    });
    expect(status).toBe(1);
    expect(out).toContain('unknown validator "not_disposable"');
    expect(out).toContain('unknown guard "is_vip"');
    expect(out).toContain('unknown effect "notify_kitchen"');
    expect(out).not.toContain('unknown task');
  }, 30_000);
});
