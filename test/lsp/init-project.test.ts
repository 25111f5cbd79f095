/**
 * `botflow lsp` on a project made by `botflow init`, and on a project whose registry does not load:
 * one diagnostic on the registry, and the server keeps answering.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initProject } from '../../src/cli/init-command.ts';
import { LspClient, localise, PACKAGE_IMPORT, REPO, remove } from './lsp-client.ts';

const dirs: string[] = [];
const clients: LspClient[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.kill();
  for (const d of dirs.splice(0)) remove(d);
});

/** A folder in the checkout's ignored tmp/, so a project's registry finds zod in its node_modules. */
function local(): string {
  mkdirSync(join(REPO, 'tmp'), { recursive: true });
  const dir = mkdtempSync(join(REPO, 'tmp', 'lsp-init-'));
  dirs.push(dir);
  return dir;
}
async function start(dir: string): Promise<LspClient> {
  const client = await LspClient.start(dir);
  clients.push(client);
  return client;
}
const FLOW = 'flows/feedback.flow.yaml';

describe('botflow lsp on a new project', () => {
  it('a project from botflow init: its flow and transcript as they are typed', async () => {
    const dir = local();
    initProject(dir);
    localise(join(dir, 'flows'), ...PACKAGE_IMPORT);
    const client = await start(dir);
    const text = readFileSync(join(dir, FLOW), 'utf8');
    client.open(FLOW, text);
    const broken = text.replace('next: ask_rating', 'next: ask_ratin');
    const since = client.seq;
    client.change(FLOW, broken);
    const [d] = await client.diagnostics(FLOW, (d) => d.length > 0, since);
    expect(d!.message).toContain('unknown step "ask_ratin"');
    const line = broken.split('\n').findIndex((l) => l.includes('next: ask_ratin'));
    expect(d!.range.start.line).toBe(line);
    client.change(FLOW, text);
    await client.diagnostics(FLOW, (d) => d.length === 0);

    const test = 'flows/tests/feedback.test.yaml';
    const transcript = readFileSync(join(dir, test), 'utf8');
    client.open(test, transcript.replace('- press: Great', '- press: Superb'));
    const [press] = await client.diagnostics(test, (d) => d.length > 0);
    expect(press).toMatchObject({ code: 'unknown-button', message: expect.stringContaining('"Superb"') });
    // The registry loaded, and its task (file_feedback) is known: the flow has no problem at all.
    expect(client.published.get(client.uri(FLOW))?.diagnostics).toEqual([]);
    expect(client.published.get(client.uri('flows/registry.ts'))).toBeUndefined();
    expect(await client.stop()).toBe(0);
  });

  it('a registry that fails to load is one diagnostic on it; the server keeps answering, and a save reloads it', async () => {
    const dir = local();
    initProject(dir);
    localise(join(dir, 'flows'), ...PACKAGE_IMPORT);
    const registry = join(dir, 'flows/registry.ts');
    const good = readFileSync(registry, 'utf8');
    writeFileSync(registry, `${good}\nthrow new Error('the kitchen API key is not set');\n`);
    const client = await start(dir);
    const found = await client.diagnostics('flows/registry.ts', (d) => d.length > 0);
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain('the kitchen API key is not set');
    expect(found[0]!.range.start).toEqual({ line: 0, character: 0 });
    // The task the flow names is folded under the registry's problem, not an error of its own.
    expect(client.published.get(client.uri(FLOW))?.diagnostics ?? []).toEqual([]);
    const symbols = await client.request<unknown[]>('textDocument/documentSymbol', {
      textDocument: { uri: client.uri(FLOW) },
    });
    expect(symbols).toEqual(expect.any(Array));
    client.open('flows/registry.ts');
    const since = client.seq;
    client.save('flows/registry.ts', good);
    await client.diagnostics('flows/registry.ts', (d) => d.length === 0, since);
    expect(await client.stop()).toBe(0);
  });
});
