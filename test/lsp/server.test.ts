/**
 * `botflow lsp` as an editor drives it, over stdio, on a copy of the example project: diagnostics as
 * you type for the file and the files it affects, transcripts, the registry, quick fixes, and a clean
 * shutdown.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeAction, Diagnostic, DocumentSymbol, Range } from 'vscode-languageserver-protocol';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { copyExampleProject, LspClient, remove } from './lsp-client.ts';

/** What the checker gives a mistyped `goto:` on this branch: a code and a fix once the checks carry them. */
const TYPO = compileSources(
  [
    {
      file: 'typo.flow.yaml',
      source: 'flow: typo\nstart: ask_name\nsteps:\n  ask_name: { type: message, say: Hi, next: ask_nmae }\n',
    },
  ],
  EMPTY_REGISTRY,
  new Map(),
).problems.find((p) => p.message.includes('ask_nmae'));

const SIGNUP = 'flows/signup.flow.yaml';
const at = (text: string, word: string, from = 0): Range => {
  const offset = text.indexOf(word, from);
  const before = text.slice(0, offset).split('\n');
  const line = before.length - 1;
  const character = before[line]!.length;
  return { start: { line, character }, end: { line, character: character + word.length } };
};
const messageOf = (d: Diagnostic) => (typeof d.message === 'string' ? d.message : d.message.value);
const messages = (d: Diagnostic[]) => d.map((x) => messageOf(x).split('\n')[0]);

describe('botflow lsp on the example project', () => {
  let dir: string;
  let client: LspClient;
  let signup: string;
  beforeAll(async () => {
    dir = copyExampleProject();
    signup = readFileSync(join(dir, SIGNUP), 'utf8');
    client = await LspClient.start(dir);
  });
  afterAll(() => {
    client.kill();
    remove(dir);
  });

  it('a broken goto typed into an open flow is a diagnostic on its word; fixing it clears it', async () => {
    client.open(SIGNUP, signup);
    const broken = signup.replace('goto: cancelled }', 'goto: cancelld }');
    let since = client.seq;
    client.change(SIGNUP, broken);
    const found = await client.diagnostics(SIGNUP, (d) => d.length > 0, since);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      severity: 1,
      source: 'botflow',
      range: at(broken, 'cancelld'),
      message: expect.stringContaining('unknown step "cancelld"'),
    });
    expect(found[0]!.message).toContain('did you mean "cancelled"?');
    since = client.seq;
    client.change(SIGNUP, signup);
    expect(await client.diagnostics(SIGNUP, (d) => d.length === 0, since)).toEqual([]);
  });

  it.skipIf(!TYPO?.code)('a diagnostic carries the problem’s stable code', async () => {
    const since = client.seq;
    client.change(SIGNUP, signup.replace('goto: cancelled }', 'goto: cancelld }'));
    const [d] = await client.diagnostics(SIGNUP, (d) => d.length > 0, since);
    expect(d!.code).toBe(TYPO!.code);
    client.change(SIGNUP, signup);
    await client.diagnostics(SIGNUP, (d) => d.length === 0);
  });

  it('renaming the flow a call: names breaks the caller, in its own file; renaming it back clears it', async () => {
    const help = readFileSync(join(dir, 'flows/help.flow.yaml'), 'utf8');
    client.open('flows/help.flow.yaml', help);
    let since = client.seq;
    client.change('flows/help.flow.yaml', help.replace('flow: help', 'flow: helper'));
    const callers = await client.diagnostics(SIGNUP, (d) => d.length > 0, since);
    expect(messages(callers).join('\n')).toMatch(/"help"/);
    expect(callers[0]!.range).toEqual(at(signup, 'help', signup.indexOf('call: help')));
    since = client.seq;
    client.change('flows/help.flow.yaml', help);
    await client.diagnostics(SIGNUP, (d) => d.length === 0, since);
    await client.diagnostics('flows/help.flow.yaml', (d) => d.length === 0, since);
  });

  it('a message id removed from a catalog breaks the say: that names it', async () => {
    const catalog = 'flows/locales/en.ftl';
    const en = readFileSync(join(dir, catalog), 'utf8');
    client.open(catalog, en);
    let since = client.seq;
    client.change(catalog, en.replace(/^booking-ask-guests = .*\n/m, ''));
    const booking = readFileSync(join(dir, 'flows/booking.flow.yaml'), 'utf8');
    const found = await client.diagnostics('flows/booking.flow.yaml', (d) => d.length > 0, since);
    const missing = found.find((d) => messageOf(d).includes('booking-ask-guests'));
    expect(missing?.range).toEqual(at(booking, 'booking-ask-guests'));
    since = client.seq;
    client.change(catalog, en);
    await client.diagnostics('flows/booking.flow.yaml', (d) => d.length === 0, since);
  });

  it('a transcript that presses a button no step of its flow offers gets a diagnostic on the label', async () => {
    const file = 'flows/tests/signup.test.yaml';
    const text = readFileSync(join(dir, file), 'utf8');
    client.open(file, text);
    const since = client.seq;
    const broken = text.replace('- press: Edit age', '- press: Edit shoe size');
    client.change(file, broken);
    const found = await client.diagnostics(file, (d) => d.length > 0, since);
    expect(found).toEqual([
      expect.objectContaining({ code: 'unknown-button', range: at(broken, 'Edit shoe size') }),
    ]);
    client.change(file, text.replace('flow: signup', 'flow: signupp'));
    const flow = await client.diagnostics(file, (d) => d.some((x) => x.code === 'unknown-flow'));
    expect(flow[0]!.message).toContain('did you mean "signup"?');
    client.change(file, text);
    await client.diagnostics(file, (d) => d.length === 0);
  });

  it.skipIf(!TYPO?.fixes?.length)(
    'a did-you-mean problem’s fix is a quick fix that repairs the file',
    async () => {
      const broken = signup.replace('goto: cancelled }', 'goto: cancelld }');
      const since = client.seq;
      client.change(SIGNUP, broken);
      const [d] = await client.diagnostics(SIGNUP, (d) => d.length > 0, since);
      const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri: client.uri(SIGNUP) },
        range: d!.range,
        context: { diagnostics: [d] },
      });
      const fix = actions.find((a) => a.kind === 'quickfix');
      const edits = fix?.edit?.changes?.[client.uri(SIGNUP)] ?? [];
      expect(edits).toEqual([{ range: d!.range, newText: 'cancelled' }]);
      client.change(SIGNUP, signup);
      await client.diagnostics(SIGNUP, (d) => d.length === 0);
    },
  );

  it('a flow file created on disk is read when the editor reports it', async () => {
    const file = 'flows/extra.flow.yaml';
    writeFileSync(
      join(dir, file),
      'flow: extra\nstart: hi\nsteps:\n  hi: { type: message, say: Hi, next: nowhere }\n',
    );
    const since = client.seq;
    client.connection.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [{ uri: client.uri(file), type: 1 }],
    });
    const found = await client.diagnostics(file, (d) => d.length > 0, since);
    expect(messages(found)).toContain('unknown step "nowhere"');
  });

  it('answers the language service’s requests, then shuts down and exits with 0', async () => {
    const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', {
      textDocument: { uri: client.uri(SIGNUP) },
    });
    expect(Array.isArray(symbols)).toBe(true);
    const completion = await client.request<unknown>('textDocument/completion', {
      textDocument: { uri: client.uri(SIGNUP) },
      position: { line: 0, character: 0 },
    });
    expect(completion === null || Array.isArray(completion) || typeof completion === 'object').toBe(true);
    // The example registry loaded (its validators and tasks are known): nothing was published for it.
    expect(client.published.get(client.uri('flows/registry.ts'))).toBeUndefined();
    expect(client.stderr).toBe('');
    expect(await client.stop()).toBe(0);
  });
});
