/**
 * The engine's stores on a real SQLite file, each method as the engine relies on it: sessions with their
 * compare-and-swap, outbox rows from insert to dead letter, durable timers from arming to pruning.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.ts';
import { type NewOutboxRow, OutboxStore } from '../../src/store/outbox.ts';
import { partitionOf } from '../../src/store/partitions.ts';
import { RevisionConflictError, type SessionRow, SessionStore } from '../../src/store/sessions.ts';
import { TaskStore } from '../../src/store/tasks.ts';
import { TimerStore } from '../../src/store/timers.ts';

let dir: string;
let db: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-stores-'));
  db = openDatabase({ path: join(dir, 'bot.db') });
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const session = (key: string, revision: number, extra: Partial<SessionRow> = {}): SessionRow => ({
  conversationKey: key,
  flowId: 'signup',
  flowVersion: 'v1',
  status: 'active',
  stateValue: '"ask_name"',
  snapshot: '{"value":"ask_name"}',
  revision,
  stepInstance: revision,
  startedRevision: 1,
  chatId: 7,
  userId: 7,
  locale: 'en',
  startedAt: 1,
  updatedAt: revision,
  ...extra,
});

describe('SessionStore', () => {
  it('writes a session only over the revision it read (compare-and-swap)', () => {
    const sessions = new SessionStore(db);
    sessions.save(session('u:1', 1), undefined);
    expect(() => sessions.save(session('u:1', 1), undefined)).toThrow(RevisionConflictError);
    sessions.save(session('u:1', 2, { stateValue: '"ask_age"' }), 1);
    expect(() => sessions.save(session('u:1', 3), 1)).toThrow(RevisionConflictError);
    sessions.advance(
      'u:1',
      { stateValue: '"done"', snapshot: '{}', revision: 3, stepInstance: 3, updatedAt: 3 },
      2,
    );
    expect(() =>
      sessions.advance(
        'u:1',
        { stateValue: '"x"', snapshot: '{}', revision: 4, stepInstance: 4, updatedAt: 4 },
        2,
      ),
    ).toThrow(RevisionConflictError);
    expect(sessions.get('u:1')).toMatchObject({ stateValue: '"done"', revision: 3, flowId: 'signup' });
  });

  it('ends a session, lists sessions newest first and counts the active ones per version', () => {
    const sessions = new SessionStore(db);
    sessions.save(session('u:1', 1, { updatedAt: 10 }), undefined);
    sessions.save(session('u:2', 1, { updatedAt: 20, flowVersion: 'v2' }), undefined);
    sessions.save(session('u:3', 1, { updatedAt: 30, flowId: 'menu' }), undefined);
    sessions.end('u:3', 'stopped', 1, 40);
    expect(sessions.get('u:3')).toMatchObject({ status: 'stopped', revision: 2 });
    expect(sessions.list().map((s) => s.conversationKey)).toEqual(['u:3', 'u:2', 'u:1']);
    expect(sessions.list({ status: 'active', limit: 1 }).map((s) => s.conversationKey)).toEqual(['u:2']);
    expect(sessions.list({ flowId: 'menu' }).map((s) => s.conversationKey)).toEqual(['u:3']);
    expect(sessions.list({ updatedBefore: 20 }).map((s) => s.conversationKey)).toEqual(['u:1']);
    expect(sessions.activeByVersion()).toEqual(
      expect.arrayContaining([
        { flowId: 'signup', flowVersion: 'v1', n: 1 },
        { flowId: 'signup', flowVersion: 'v2', n: 1 },
      ]),
    );
  });
});

const call = (seq: number, extra: Partial<NewOutboxRow> = {}): NewOutboxRow => ({
  conversationKey: 'u:1',
  revision: 1,
  seq,
  orderKey: 'chat:7',
  chatId: 7,
  kind: 'api',
  op: 'sendMessage',
  args: `{"chat_id":7,"text":"${seq}"}`,
  ref: null,
  priority: 'reply',
  createdAt: 1,
  ...extra,
});

describe('OutboxStore', () => {
  it('takes each call once from pending to done, keeping its result', () => {
    const outbox = new OutboxStore(db);
    outbox.insert(call(1));
    outbox.insert(call(2, { ref: 'render' }));
    const open = outbox.open(0, 10);
    expect(open.map((r) => [r.seq, r.status, r.idempotencyKey])).toEqual([
      [1, 'pending', 'u:1:1:1'],
      [2, 'pending', 'u:1:1:2'],
    ]);
    expect(outbox.claim(open[0]!.id, 5)).toBe(true);
    expect(outbox.get(open[0]!.id)).toMatchObject({ status: 'sending', attempts: 1 });
    outbox.finish(open[0]!.id, { status: 'done', result: '{"mid":"m1"}' }, 6);
    expect(outbox.get(open[0]!.id)).toMatchObject({ status: 'done', result: '{"mid":"m1"}' });
    // A call claimed and never sent (the process stopped) goes back in line without counting an attempt.
    outbox.claim(open[1]!.id, 7);
    outbox.release(open[1]!.id);
    expect(outbox.get(open[1]!.id)).toMatchObject({ status: 'pending', attempts: 0, sentAt: null });
    // Issue 28: once a claim may have sent it, the first send time stays through re-claims and releases.
    outbox.claim(open[1]!.id, 8);
    outbox.claim(open[1]!.id, 9); // the next dispatcher, after the first one died
    outbox.release(open[1]!.id);
    expect(outbox.get(open[1]!.id)).toMatchObject({ status: 'pending', attempts: 1, sentAt: 8 });
    outbox.claim(open[1]!.id, 10);
    expect(outbox.get(open[1]!.id)).toMatchObject({ status: 'sending', attempts: 2, sentAt: 8 });
    outbox.release(open[1]!.id);
    outbox.release(open[1]!.id); // not in flight: nothing changes
    expect(outbox.counts()).toMatchObject({ pending: 1, done: 1 });
    expect(outbox.forConversation('u:1').map((r) => r.seq)).toEqual([2, 1]);
  });

  it('keeps dead letters to retry or drop, and drops what a person left behind', () => {
    const outbox = new OutboxStore(db);
    for (const seq of [1, 2, 3]) outbox.insert(call(seq));
    const [a, b, c] = outbox.open(0, 10);
    for (const row of [a!, b!]) {
      outbox.claim(row.id, 2);
      outbox.finish(row.id, { status: 'failed', error: 'chat.denied' }, 3);
    }
    expect(outbox.failed().map((r) => r.id)).toEqual([b!.id, a!.id]);
    expect(outbox.retryFailed([a!.id])).toBe(1);
    expect(outbox.get(a!.id)).toMatchObject({ status: 'pending', error: null });
    expect(outbox.dropFailed(undefined, 9)).toBe(1);
    expect(outbox.get(b!.id)?.status).toBe('dropped');
    expect(outbox.dropPending('u:1', 'the person stopped the bot', 10)).toBe(2);
    expect(outbox.get(c!.id)).toMatchObject({ status: 'dropped', error: 'the person stopped the bot' });
    expect(outbox.prune(11)).toBe(3);
  });
});

describe('TaskStore', () => {
  it('counts attempts, and a task done after a failed attempt keeps that attempt’s error', () => {
    const tasks = new TaskStore(db);
    tasks.insert({
      conversationKey: 'u:1',
      revision: 1,
      stepInstance: 1,
      name: 'find_slots',
      ref: 'find',
      input: '{}',
      scope: '{}',
      policy: '{}',
      chatId: 1,
      idempotencyKey: 'task:u:1:1:0',
      createdAt: 1,
    });
    const [first] = tasks.claimDue('all', 1, 10);
    const timeout = '{"code":"timeout","message":"no answer in 10 s"}';
    expect(tasks.retryLater(first!.id, 2, timeout)).toBe(true);
    expect(tasks.claimDue('all', 2, 10)).toHaveLength(1);
    expect(tasks.finish(first!.id, { status: 'done', result: '[]' }, 3)).toBe(true);
    expect(tasks.get(first!.id)).toMatchObject({ status: 'done', attempts: 2, result: '[]', error: timeout });
  });
});

describe('TaskStore as the task port', () => {
  const add = (tasks: TaskStore, conversationKey: string, runAfter: number) =>
    tasks.insert({
      conversationKey,
      revision: 1,
      stepInstance: 1,
      name: 't',
      ref: 'r',
      input: '{}',
      scope: '{}',
      policy: '{}',
      chatId: null,
      idempotencyKey: `task:${conversationKey}`,
      createdAt: 1,
      runAfter,
    });

  it("takes partitions: 'all' for one process, or a list of the conversations' partitions", () => {
    const tasks = new TaskStore(db);
    add(tasks, 'u:1', 5);
    add(tasks, 'u:2', 7);
    const [p1, p2] = [partitionOf('u:1'), partitionOf('u:2')];
    expect(p1).not.toBe(p2);
    expect(tasks.nextRunAfter('all')).toBe(5);
    expect(tasks.nextRunAfter([p2])).toBe(7);
    expect(tasks.nextRunAfter([])).toBeUndefined();
    expect(tasks.claimDue([], 10, 10)).toEqual([]);
    expect(tasks.claimDue([p2], 10, 10).map((t) => t.conversationKey)).toEqual(['u:2']);
    expect(tasks.claimDue('all', 10, 10).map((t) => t.conversationKey)).toEqual(['u:1']);
  });

  it('recovers tasks left running, never those this process runs', () => {
    const tasks = new TaskStore(db);
    add(tasks, 'u:1', 5);
    add(tasks, 'u:2', 5);
    const [mine] = tasks.claimDue('all', 10, 1);
    tasks.claimDue('all', 10, 1);
    expect(tasks.recover('all', [mine!.id])).toBe(1);
    expect(tasks.get(mine!.id)).toMatchObject({ status: 'running' });
    expect(tasks.counts()).toMatchObject({ pending: 1, running: 1 });
    expect(tasks.cancelled([mine!.id])).toEqual([]);
    tasks.cancelAll('u:1', 'left', 11);
    expect(tasks.cancelled([mine!.id, 99])).toEqual([mine!.id]);
  });
});

describe('TimerStore', () => {
  const arm = (timers: TimerStore, name: string, dueAt: number, stepInstance = 1) =>
    timers.arm({ conversationKey: 'u:1', name, dueAt, stepInstance, revision: stepInstance, now: 0 });

  it('arms one timer per name, fires due ones once, and tells the next firing time', () => {
    const timers = new TimerStore(db);
    arm(timers, 'remind', 100);
    arm(timers, 'remind', 200); // re-armed: replaces the first
    arm(timers, 'idle', 300);
    expect(timers.nextFireAt()).toBe(200);
    expect(timers.due(250, 10).map((t) => t.name)).toEqual(['remind']);
    const [due] = timers.due(250, 10);
    expect(timers.markFired(due!.id, 250)).toBe(true);
    expect(timers.markFired(due!.id, 251)).toBe(false);
    expect(timers.nextFireAt()).toBe(300);
    timers.postpone(timers.due(1_000, 10)[0]!.id, 400);
    expect(timers.overdue(350)).toEqual([]);
    expect(timers.overdue(401).map((t) => t.fireAt)).toEqual([400]);
  });

  it('cancels, discards timers of steps left behind, expires, settles all and prunes', () => {
    const timers = new TimerStore(db);
    arm(timers, 'a', 100, 1);
    arm(timers, 'b', 100, 2);
    arm(timers, 'c', 100, 2);
    timers.cancel('u:1', 'a', 'the person answered', 5);
    expect(timers.discardOtherSteps('u:1', 2, 'step left', 5)).toBe(0);
    arm(timers, 'd', 100, 3);
    expect(timers.discardOtherSteps('u:1', 3, 'step left', 6)).toBe(2);
    const [d] = timers.due(100, 10);
    timers.expire(d!.id, 'came due too long ago', 7);
    expect(timers.forConversation('u:1').map((t) => [t.name, t.status])).toEqual([
      ['d', 'expired'],
      ['c', 'discarded'],
      ['b', 'discarded'],
      ['a', 'cancelled'],
    ]);
    arm(timers, 'e', 100, 4);
    expect(timers.settleAll('u:1', 'cancelled', 'session ended', 8)).toBe(1);
    expect(timers.nextFireAt()).toBeUndefined();
    expect(timers.prune(9)).toBe(5);
  });
});
