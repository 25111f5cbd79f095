/**
 * Record and replay: recorded sessions of the examples replay with no differences; a deliberate change to
 * a flow makes replay report exactly the changed calls; personal values and the token never reach the file.
 */

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { runReplay } from '../../src/cli/replay-command.ts';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources, loadLocales, loadRegistry, readFlowSources } from '../../src/flows/load.ts';
import { InboxWriter } from '../../src/inbox/inbox-writer.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { createRecorder, Redactor } from '../../src/runtime/recorder.ts';
import { readRecording } from '../../src/runtime/recording.ts';
import { openDatabase } from '../../src/store/database.ts';
import { InboxStore } from '../../src/store/inbox.ts';
import { copyFromSqlite } from '../../src/store/postgres/copy-from-sqlite.ts';
import { openPostgres } from '../../src/store/postgres/database.ts';
import { loadFlowsOrThrow } from '../../src/testing/flows.ts';
import { Harness } from '../../src/testing/harness.ts';
import { loadTranscripts } from '../../src/testing/load.ts';
import { recordingFromDatabase } from '../../src/testing/recording-from-db.ts';
import { replay } from '../../src/testing/replay.ts';
import { runTranscript } from '../../src/testing/run.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

let flows: FlowDefinition[];
const dir = mkdtempSync(join(tmpdir(), 'botflow-replay-test-'));

/** The example flows with one text changed, as an author's edit would. */
async function changedFlows(from: string, to: string): Promise<FlowDefinition[]> {
  const sources = readFlowSources('flows').map((s) => ({ ...s, source: s.source.replace(from, to) }));
  const { registry } = await loadRegistry('flows');
  const result = compileSources(sources, registry, loadLocales('flows'));
  expect(result.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return result.flows;
}

let recordings = 0;
async function record(name: string): Promise<string> {
  const t = loadTranscripts(['flows/tests']).transcripts.find((x) => x.name === name)!;
  const file = join(dir, `${++recordings}.jsonl`);
  const result = await runTranscript(t, { flows, recorder: (now) => createRecorder(file, { now }) });
  expect(result.failure?.report).toBeUndefined();
  return file;
}

beforeAll(async () => {
  flows = await loadFlowsOrThrow('flows');
});

const pgUp = await postgresAvailable();

describe('record and replay', () => {
  it('every recorded example dialog replays against the same flows with no differences', async () => {
    // start_at transcripts begin from a written snapshot that is not part of any recording.
    const all = loadTranscripts(['flows/tests']).transcripts.filter((t) => !t.startAt);
    for (const t of all) {
      const file = await record(t.name);
      const result = await replay(readRecording(file), { flows });
      expect(result.recordedCalls).toBeGreaterThan(0);
      expect({ name: t.name, diff: result.differences.map((d) => d.text) }).toEqual({
        name: t.name,
        diff: [],
      });
      expect(result.replayedCalls).toBe(result.recordedCalls);
    }
  }, 180_000);

  it('a changed prompt is reported as exactly that call, removed and added', async () => {
    const file = await record('happy path');
    const changed = await changedFlows('say: "Your email address?"', 'say: "Your e-mail, please?"');
    const result = await replay(readRecording(file), { flows: changed });
    expect(result.differences).toHaveLength(1);
    const [diff] = result.differences;
    expect(diff!.removed).toBe(1);
    expect(diff!.added).toBe(1);
    const changedLines = diff!.text.split('\n').filter((l) => /^ {2}[-+] /.test(l));
    expect(changedLines).toEqual([
      '  - sendMessage    send "Your email address?"',
      '  + sendMessage    send "Your e-mail, please?"',
    ]);
    // Under what the person did that led to it, and the step the conversation was at.
    const lines = diff!.text.split('\n');
    const at = lines.indexOf('  - sendMessage    send "Your email address?"');
    expect(lines.slice(0, at).findLast((l) => l.startsWith('  after '))).toBe(
      '  after message "34", at step ask_email:',
    );
  }, 60_000);

  it('botflow replay exits 0 without differences and 1 with them, printing the diff', async () => {
    const file = await record('validation errors');
    const lines: string[] = [];
    expect(await runReplay([file, '--flows', 'flows'], (l) => lines.push(l))).toBe(0);
    expect(lines.at(-1)).toMatch(/10 updates replayed; 10 calls recorded, 10 made now: no differences/);
    // A deliberately broken recording: one recorded text changed.
    const edited = join(dir, 'edited.jsonl');
    writeFileSync(
      edited,
      readFileSync(file, 'utf8').replace('Ages from 14 to 120 only, please.', 'Too old!'),
    );
    const out: string[] = [];
    expect(await runReplay([edited], (l) => out.push(l))).toBe(1);
    expect(out.join('\n')).toContain('- sendMessage    send "Too old!"');
    expect(out.join('\n')).toContain('+ sendMessage    send "Ages from 14 to 120 only, please."');
    expect(await runReplay([join(dir, 'missing.jsonl')], () => {})).toBe(2);
  }, 60_000);

  it('a contact’s phone is replaced everywhere by one placeholder, and the dialog still replays', async () => {
    const file = await record('an unfinished request is closed after two idle hours');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('+4930123456');
    expect(text).toContain('"vcf_info":"«vcf_info:1»"');
    expect((await replay(readRecording(file), { flows })).differences).toEqual([]);
  }, 60_000);

  it('secrets never reach the file, even inside texts', () => {
    const r = new Redactor(['phone'], ['123456:SECRET-token']);
    const out = r.redact({ error: 'bad token 123456:SECRET-token', contact: { phone: '+491701234567' } });
    expect(JSON.stringify(out)).not.toContain('SECRET');
    expect(r.redact({ text: 'call +491701234567' })).toEqual({ text: 'call «phone:1»' });
  });

  it('replays a conversation from the inbox and outbox of a database', async () => {
    const h = await Harness.start({ flows });
    try {
      const ann = await h.person('Ann');
      await h.act(ann, { kind: 'start' });
      await h.act(ann, { kind: 'wait', ms: 60_000, text: '1m' });
      await h.act(ann, { kind: 'say', text: 'Ann' });
      await h.act(ann, { kind: 'say', text: '41' });
      await h.act(ann, { kind: 'wait', ms: 3 * 3_600_000, text: '3h' });
      const recording = await recordingFromDatabase({ path: h.databasePath }, `u:${ann.userId}`);
      expect(recording.updates).toHaveLength(3);
      expect((await replay(recording, { flows })).differences).toEqual([]);
      const changed = await changedFlows('say: "Your email address?"', 'say: "Email?"');
      const result = await replay(recording, { flows: changed });
      expect(result.differences.map((d) => [d.removed, d.added])).toEqual([[1, 1]]);
      await expect(recordingFromDatabase({ path: h.databasePath }, 'u:0')).rejects.toThrow(
        /no updates of conversation "u:0"/,
      );
      expect(recording.warnings).toBeUndefined();
      // Pruning removed the first update: the replay says it cannot start where the session started.
      h.db.prepare("DELETE FROM inbox WHERE id = (SELECT min(id) FROM inbox WHERE kind = 'update')").run();
      const pruned = await recordingFromDatabase({ path: h.databasePath }, `u:${ann.userId}`);
      expect(pruned.warnings).toEqual([
        expect.stringContaining(`u:${ann.userId}: its session started before`),
      ]);
    } finally {
      await h.close();
    }
  }, 60_000);

  it.skipIf(!pgUp)(
    'replays the same from a PostgreSQL database (--database-url)',
    async () => {
      const h = await Harness.start({ flows });
      const target = await migratedDatabase();
      try {
        const ann = await h.person('Ann');
        await h.act(ann, { kind: 'start' });
        await h.act(ann, { kind: 'say', text: 'Ann' });
        await h.act(ann, { kind: 'say', text: '41' });
        const key = `u:${ann.userId}`;
        const pg = await openPostgres({ url: target.url });
        const sqlite = new SQLite(h.databasePath, { readonly: true });
        await copyFromSqlite(sqlite, pg.pool);
        sqlite.close();
        await pg.close();
        const fromPg = await recordingFromDatabase({ url: target.url }, key);
        expect(fromPg).toEqual(await recordingFromDatabase({ path: h.databasePath }, key));
        const changed = await changedFlows('say: "Your email address?"', 'say: "Email?"');
        const result = await replay(fromPg, { flows: changed });
        expect(result.differences.map((d) => [d.removed, d.added])).toEqual([[1, 1]]);
        const lines: string[] = [];
        expect(
          await runReplay(['--database-url', target.url, '--conversation', key], (l) => lines.push(l)),
        ).toBe(0);
        expect(lines.at(-1)).toMatch(/3 updates replayed; .*: no differences/);
        await expect(recordingFromDatabase({ url: target.url }, 'u:0')).rejects.toThrow(
          /no updates of conversation "u:0"/,
        );
      } finally {
        await h.close();
        await target.drop();
      }
    },
    60_000,
  );

  it('in a session of several people, only the conversation that meets the change differs', async () => {
    const file = join(dir, 'two-people.jsonl');
    const h = await Harness.start({ flows, recorder: (now) => createRecorder(file, { now }) });
    try {
      const ann = await h.person('Ann');
      const bob = await h.person('Bob');
      await h.act(ann, { kind: 'start' });
      await h.act(bob, { kind: 'start' });
      await h.act(ann, { kind: 'say', text: 'Ann' });
      await h.act(bob, { kind: 'say', text: 'Bob' });
      await h.act(bob, { kind: 'say', text: '40' });
      await h.act(ann, { kind: 'say', text: '15' });
      await h.act(bob, { kind: 'wait', ms: 3_600_000, text: '1h' });
    } finally {
      await h.close();
    }
    expect((await replay(readRecording(file), { flows })).differences).toEqual([]);
    const changed = await changedFlows('must be 18 or older', 'need to be 18 or older');
    const result = await replay(readRecording(file), { flows: changed });
    expect(result.differences.map((d) => [d.removed, d.added])).toEqual([[1, 1]]);
    expect(result.differences[0]!.text).toContain(
      '+ sendMessage    send "Sorry, you need to be 18 or older to sign up."',
    );
  }, 60_000);

  it('records the updates intake accepted (through the inbox writer), with secrets added after start redacted', async () => {
    const db = openDatabase({ path: join(dir, 'accepted.db') });
    const file = join(dir, 'accepted.jsonl');
    const recorder = createRecorder(file, { now: () => 1000 });
    recorder.addSecret('sandbox-token-123');
    const update = (text: string, n: number) =>
      JSON.stringify({
        update_type: 'message_created',
        timestamp: n,
        message: {
          sender: { user_id: 7 },
          recipient: { chat_id: 9, chat_type: 'dialog' },
          body: { mid: `m${n}`, seq: n, text },
        },
      });
    const writer = new InboxWriter({
      inbox: new InboxStore(db),
      onAccepted: (batch) => recorder.accepted(batch.payloads),
    });
    await Promise.all([
      writer.submit(updateEntry(update('hello', 1))),
      writer.submit(updateEntry(update('my token is sandbox-token-123', 2))),
      writer.submit(updateEntry(update('hello', 1))), // a duplicate: not recorded twice
    ]);
    await recorder.close();
    db.close();
    const recording = readRecording(file);
    expect(recording.updates.map((u) => (u.update.message as { body: { text: string } }).body.text)).toEqual([
      'hello',
      'my token is «redacted»',
    ]);
    expect(readFileSync(file, 'utf8')).not.toContain('sandbox-token-123');
  });
});
