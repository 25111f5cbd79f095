import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyMachineSnapshot } from 'xstate';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources, loadFlows } from '../../src/flows/load.ts';
import { watchFlows } from '../../src/flows/watch.ts';
import { eventually } from '../support/eventually.ts';
import { Drive, type Snapshot } from './drive.ts';

const v1 = `flow: shop
version: 1
start: ask_email
steps:
  ask_email:
    type: input
    say: "Email?"
    input: email
    retries: { max: 2, exhausted: { goto: bye } }
    save: mail
    next: ask_size
  ask_size:
    type: input
    say: "Size for {{mail}}?"
    input: text
    retries: { max: 2, exhausted: { goto: bye } }
    save: size
    next: bye
  bye:
    type: end
    say: "Bye {{email}} {{size}}"
`;

const v2 = v1
  .replace('version: 1', 'version: 2')
  .replace(/ask_size/g, 'ask_shoe_size')
  .replace(/save: mail/, 'save: email')
  .replace('{{mail}}', '{{email}}')
  .concat(`migrate:
  - from: [1]
    steps: { ask_size: ask_shoe_size }
    context: { rename: { mail: email }, set: { migrated: true } }
`);

const compile = (source: string): FlowDefinition => {
  const r = compileSources(
    [{ file: 'shop.flow.yaml', source }],
    { validators: {}, guards: {}, effects: {} },
    new Map(),
  );
  expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return r.flows[0]!;
};

const persist = (def: FlowDefinition, s: Snapshot) =>
  JSON.parse(JSON.stringify(def.machine.getPersistedSnapshot(s)));
const restore = (def: FlowDefinition, persisted: unknown) =>
  def.machine.restoreSnapshot(persisted as never, { self: undefined } as never) as AnyMachineSnapshot;

describe('versions: content hashes, pinning and migrate', () => {
  it('the version is the canonical content: comments, quotes and key order do not change it', () => {
    const a = compile(v1);
    const reformatted = `# a comment\n${v1.replace('flow: shop\nversion: 1', 'version: 1\nflow: "shop"')}`;
    expect(compile(reformatted).version).toBe(a.version);
    expect(a.version).toMatch(/^1-[0-9a-f]{16}$/);
    expect(compile(v1.replace('Email?', 'Your email?')).version).not.toBe(a.version);
  });

  it('a running conversation stays on its version when the new file has no migrate block', () => {
    const old = compile(v1);
    const d = new Drive(old);
    d.text('ann@example.org');
    const changed = compile(v1.replace('Size for', 'Which size for'));
    expect(changed.migrate).toBeUndefined();
    // The old definition keeps running the session: its snapshot still restores and behaves as before.
    const resumed = new Drive(old, { snapshot: restore(old, persist(old, d.snapshot)) as Snapshot });
    resumed.text('42');
    expect(resumed.said).toEqual(['Bye  42']);
  });

  it('migrate: maps the old step and renames context variables; other versions stay pinned', () => {
    const old = compile(v1);
    const d = new Drive(old);
    d.text('ann@example.org');
    expect(d.step).toBe('ask_size');
    const next = compile(v2);
    const moved = next.migrate!(old.version, persist(old, d.snapshot)) as {
      value: unknown;
      context: { vars: Record<string, unknown> };
    };
    expect(moved.value).toBe('ask_shoe_size');
    expect(moved.context.vars).toEqual({ email: 'ann@example.org', migrated: true });
    const resumed = new Drive(next, { snapshot: restore(next, moved) as Snapshot });
    resumed.text('42');
    expect(resumed.said).toEqual(['Bye ann@example.org 42']);
    expect(next.migrate!('7-0123456789abcdef', persist(old, d.snapshot))).toBeUndefined();
  });

  it('migrate: a removed step without a mapping or otherwise keeps the session on its version', () => {
    const old = compile(v1);
    const d = new Drive(old);
    d.text('ann@example.org');
    const next = compile(v2.replace('    steps: { ask_size: ask_shoe_size }\n', ''));
    expect(next.migrate!(old.version, persist(old, d.snapshot))).toBeUndefined();
    const withOtherwise = compile(
      v2.replace('    steps: { ask_size: ask_shoe_size }\n', '    otherwise: ask_email\n'),
    );
    expect((withOtherwise.migrate!(old.version, persist(old, d.snapshot)) as { value: unknown }).value).toBe(
      'ask_email',
    );
  });

  it('hot reload: a changed file is reloaded and reported with its new version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-watch-'));
    writeFileSync(join(dir, 'shop.flow.yaml'), v1);
    const first = await loadFlows(dir);
    const seen: string[] = [];
    const watcher = watchFlows(dir, (r) => seen.push(...r.flows.map((f) => f.version)), { debounceMs: 20 });
    try {
      writeFileSync(join(dir, 'shop.flow.yaml'), v2);
      await eventually('the reloaded version', () => seen.some((v) => v.startsWith('2-')), 20_000);
      expect(seen).not.toContain(first.flows[0]!.version);
      expect(readFileSync(join(dir, 'shop.flow.yaml'), 'utf8')).toContain('migrate:');
    } finally {
      watcher.close();
    }
  });
});
