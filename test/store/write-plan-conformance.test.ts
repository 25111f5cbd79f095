// One write-plan contract, two interpreters: the same `WriteOp` batches are applied by the TypeScript applier
// on SQLite (BatchApplier) and by the PL/pgSQL function botflow_apply_batch on PostgreSQL (applyBatch), and
// what each answers (ApplyResult[]) and leaves in the tables (sessions, outbox, timers, tasks, step log,
// inbox status) must be the same. The batches are written once, below; every kind of write has one.
//
// The picture is normalised only where the two databases cannot agree: row ids become their rank in the
// table (PostgreSQL sequences skip the ids of rolled-back inserts), PostgreSQL's own columns (partition,
// claimed_by) are left out, and the text of an error the database raised itself (a refused write) is
// replaced by a marker, as each database words it its own way. Each case starts from empty tables: a new
// SQLite database in memory, and on PostgreSQL one migrated database per file whose tables are emptied with
// their identities restarted (TRUNCATE … RESTART IDENTITY) before each case.
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.ts';
import type { NewOutboxRow } from '../../src/store/outbox.ts';
import { applyBatch } from '../../src/store/postgres/commit.ts';
import { openPostgres, type PostgresDatabase, partitionOf } from '../../src/store/postgres/database.ts';
import type { SessionRow } from '../../src/store/sessions.ts';
import { BatchApplier } from '../../src/store/sqlite/apply.ts';
import type { StepLogEntry } from '../../src/store/step-log.ts';
import type { NewTaskRow } from '../../src/store/tasks.ts';
import {
  type ApplyResult,
  type PlannedWrites,
  WRITE_OP_KINDS,
  type WriteOp,
} from '../../src/store/write-plan.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();

/** The clock of every batch (the applier's `now`). */
const NOW = 10_000;

// ---- Builders: plain rows as the planner writes them ----------------------------------------------------

function sessionRow(key: string, revision: number, over: Partial<SessionRow> = {}): SessionRow {
  return {
    conversationKey: key,
    flowId: 'order',
    flowVersion: 'v1',
    status: 'active',
    stateValue: '"ask"',
    snapshot: `{"value":"ask","revision":${revision}}`,
    revision,
    stepInstance: revision,
    startedRevision: 1,
    chatId: 42,
    userId: 7,
    locale: 'en',
    startedAt: 1_000,
    updatedAt: 1_000 + revision,
    ...over,
  };
}

/** A session write: `expected` undefined inserts; `sameShape` advances only the step's columns. */
function session(row: SessionRow, expected: number | undefined, sameShape = false): WriteOp {
  return { kind: 'session', row, expected, sameShape };
}

function call(key: string, revision: number, seq: number, over: Partial<NewOutboxRow> = {}): WriteOp {
  return {
    kind: 'call',
    row: {
      conversationKey: key,
      revision,
      seq,
      orderKey: 'chat:42',
      chatId: 42,
      kind: 'api',
      op: 'sendMessage',
      args: `{"chat_id":42,"text":"m${revision}.${seq}"}`,
      ref: null,
      priority: 'interactive',
      createdAt: NOW,
      ...over,
    },
  };
}

function arm(key: string, name: string, stepInstance: number, dueAt: number): WriteOp {
  return {
    kind: 'arm',
    timer: { conversationKey: key, name, dueAt, stepInstance, revision: stepInstance, now: NOW },
  };
}

function task(key: string, ref: string, over: Partial<NewTaskRow> = {}): WriteOp {
  return {
    kind: 'task',
    row: {
      conversationKey: key,
      revision: 1,
      stepInstance: 1,
      name: 'place_order',
      ref,
      input: '{"qty":2}',
      scope: '{"vars":{"name":"Ann","qty":2},"locale":"en"}',
      policy: '{"timeoutMs":5000,"attempts":3,"onCancel":{"task":"cancel_order"}}',
      chatId: 42,
      idempotencyKey: `task:${key}:1:${ref}`,
      createdAt: NOW,
      ...over,
    },
  };
}

function log(
  key: string,
  event: StepLogEntry['event'],
  step: string,
  n = 1,
  sample?: string | null,
): WriteOp {
  return {
    kind: 'step-log',
    row: {
      conversationKey: key,
      stepInstance: 1,
      sessionRevision: 1,
      flowId: 'order',
      flowVersion: 'v1',
      step,
      event,
      n,
      at: NOW,
      ...(sample !== undefined ? { sample } : {}),
    },
  };
}

/** One event of a batch: inbox row `inboxId`, done unless said otherwise. */
function ev(inboxId: number, conversationKey: string | null, ops: WriteOp[], done = true): PlannedWrites {
  return { inboxId, conversationKey, done, ops };
}

// ---- The table ------------------------------------------------------------------------------------------

/** A step of a case: a batch to apply (its results are compared), or SQL both databases run alike. */
type Step = { batch: PlannedWrites[]; statuses?: ApplyResult['status'][] } | { sql: string };

interface Case {
  name: string;
  /** The inbox rows the case starts with (ids 1, 2, …), by conversation key. */
  inbox: (string | null)[];
  steps: Step[];
}

const CASES: Case[] = [
  {
    name: 'a first session with its calls, timer, task and step log line',
    inbox: ['c1'],
    steps: [
      {
        batch: [
          ev(1, 'c1', [
            session(sessionRow('c1', 1), undefined),
            log('c1', 'enter', 'ask'),
            call('c1', 1, 0),
            call('c1', 1, 1, {
              idempotencyKey: 'answer:cb1',
              kind: 'upload_and_send',
              chatId: null,
              ref: 'photo',
              priority: 'bulk',
            }),
            arm('c1', 'reminder', 1, NOW + 60_000),
            task('c1', 'order'),
          ]),
        ],
        statuses: ['applied'],
      },
    ],
  },
  {
    name: 'a session saved with every column, then advanced, by several events of one conversation in one batch',
    inbox: ['c1', 'c1', 'c1', 'c1'],
    steps: [
      { batch: [ev(1, 'c1', [session(sessionRow('c1', 1), undefined)])] },
      {
        batch: [
          ev(2, 'c1', [session(sessionRow('c1', 2, { locale: 'de', userId: null, chatId: 43 }), 1)]),
          ev(3, 'c1', [
            session(
              sessionRow('c1', 3, { locale: 'de', userId: null, chatId: 43, stateValue: '"pay"' }),
              2,
              true,
            ),
            call('c1', 3, 0),
          ]),
          ev(4, 'c1', [
            session(sessionRow('c1', 4, { locale: 'de', userId: null, chatId: 43, status: 'done' }), 3),
            log('c1', 'finish', 'pay'),
          ]),
        ],
        statuses: ['applied', 'applied', 'applied'],
      },
    ],
  },
  {
    name: 'an advance (same shape) writes only the step: snapshot, state, revision, step instance, time',
    inbox: ['c1', 'c1'],
    steps: [
      { batch: [ev(1, 'c1', [session(sessionRow('c1', 1), undefined)])] },
      {
        batch: [
          ev(2, 'c1', [
            session(
              sessionRow('c1', 2, { chatId: 99, userId: 98, locale: 'fr', startedAt: 5, startedRevision: 2 }),
              1,
              true,
            ),
          ]),
        ],
        statuses: ['applied'],
      },
    ],
  },
  {
    name: 'an ended session settles its timers, drops its unsent calls and cancels its tasks',
    inbox: ['c1', 'c1'],
    steps: [
      {
        batch: [
          ev(1, 'c1', [
            session(sessionRow('c1', 1), undefined),
            call('c1', 1, 0),
            call('c1', 1, 1),
            call('c1', 1, 2),
            arm('c1', 'a', 1, NOW + 1),
            arm('c1', 'b', 1, NOW + 2),
            task('c1', 'order', { policy: '{}' }),
          ]),
        ],
      },
      { sql: "UPDATE outbox SET status = 'sending', attempts = 1, sent_at = 9000 WHERE seq = 0" },
      {
        batch: [
          ev(2, 'c1', [
            session(sessionRow('c1', 2, { status: 'stopped' }), 1),
            log('c1', 'stop', 'ask'),
            { kind: 'settle-timers', key: 'c1', status: 'cancelled', reason: 'the person left', now: NOW },
            { kind: 'drop-calls', key: 'c1', reason: 'the person left', now: NOW },
            { kind: 'cancel-tasks', key: 'c1', reason: 'the person left', now: NOW },
            { kind: 'settle-timers', key: 'c1', status: 'discarded', reason: 'none left', now: NOW },
            { kind: 'drop-calls', key: 'c1', reason: 'none left', now: NOW },
          ]),
        ],
        statuses: ['applied'],
      },
    ],
  },
  {
    name: 'timers: re-arming a name replaces it, a cancel settles one, a discard those of other steps',
    inbox: ['c1', 'c1'],
    steps: [
      {
        batch: [
          ev(1, 'c1', [
            arm('c1', 'a', 1, NOW + 100),
            arm('c1', 'b', 1, NOW + 200),
            arm('c1', 'c', 1, NOW + 300),
            arm('other', 'a', 1, NOW + 400),
          ]),
        ],
      },
      {
        batch: [
          ev(2, 'c1', [
            arm('c1', 'a', 2, NOW + 150),
            {
              kind: 'discard',
              key: 'c1',
              stepInstance: 2,
              reason: 'the step that armed it was left',
              now: NOW,
            },
            arm('c1', 'b', 2, NOW + 250),
            { kind: 'cancel', key: 'c1', name: 'a', reason: 'cancelled by the flow', now: NOW },
            { kind: 'cancel', key: 'c1', name: 'never-armed', reason: 'cancelled by the flow', now: NOW },
          ]),
        ],
        statuses: ['applied'],
      },
    ],
  },
  {
    name: 'tasks: one cancelled by ref, then all; a started one gets its compensation, compensations stay',
    inbox: ['c1', 'c1'],
    steps: [
      {
        batch: [
          ev(1, 'c1', [
            task('c1', 'running'),
            task('c1', 'retrying', { policy: '{"onCancel":{"task":"undo"}}', scope: '{}' }),
            task('c1', 'plain', { policy: '{"timeoutMs":100}' }),
            task('c1', 'waiting'),
            task('c1', 'earlier:on_cancel', { policy: '{}' }),
            task('c2', 'elsewhere'),
          ]),
        ],
      },
      {
        sql:
          "UPDATE tasks SET status = 'running', attempts = 1, started_at = 9500 WHERE ref IN ('running', 'plain'); " +
          'UPDATE tasks SET attempts = 1, run_after = 20000, error = \'{"code":"unavailable"}\' WHERE ref = \'retrying\'',
      },
      {
        batch: [
          ev(2, 'c1', [
            { kind: 'cancel-task', key: 'c1', ref: 'waiting', reason: 'cancelled by the flow', now: NOW },
            { kind: 'cancel-task', key: 'c1', ref: 'earlier:on_cancel', reason: 'never', now: NOW },
            { kind: 'cancel-tasks', key: 'c1', reason: 'the step that started it was left', now: NOW },
            { kind: 'cancel-task', key: 'c1', ref: 'running', reason: 'already cancelled', now: NOW },
          ]),
        ],
        statuses: ['applied'],
      },
    ],
  },
  {
    name: 'a task whose first attempt waits (runAfter), and reasons with characters JSON escapes',
    inbox: ['c1'],
    steps: [
      {
        batch: [
          ev(1, 'c1', [
            task('c1', 'later', { runAfter: NOW + 60_000 }),
            task('c1', 'now'),
            {
              kind: 'cancel-task',
              key: 'c1',
              ref: 'now',
              reason: 'quote " backslash \\ tab \t control \u0001 é ✓',
              now: NOW,
            },
          ]),
        ],
        statuses: ['applied'],
      },
    ],
  },
  {
    name: 'the step log: enter, finish, retry, stop, fail',
    inbox: ['c1'],
    steps: [
      {
        batch: [
          ev(1, 'c1', [
            log('c1', 'enter', 'ask'),
            log('c1', 'retry', 'ask', 3),
            log('c1', 'fail', 'ask'),
            log('c1', 'enter', 'pay>card'),
            log('c1', 'finish', 'done'),
            log('c1', 'stop', 'done'),
          ]),
        ],
        statuses: ['applied'],
      },
    ],
  },
  {
    name: 'the step log: unrecognised texts with their samples, or counted only (a null sample)',
    inbox: ['c1', 'c2', 'c1'],
    steps: [
      {
        batch: [
          ev(1, 'c1', [
            log('c1', 'enter', 'ask'),
            log('c1', 'unrecognised', 'ask', 1, 'blue-ish, «maybe» 🙂'),
          ]),
          ev(2, 'c2', [
            log('c2', 'unrecognised', 'menu', 1, null),
            log('c2', 'unrecognised', 'menu', 1, 'x'),
          ]),
        ],
        statuses: ['applied', 'applied'],
      },
      {
        batch: [ev(3, 'c1', [log('c1', 'unrecognised', 'ask', 1, "it's '; DROP TABLE step_log; --")])],
        statuses: ['applied'],
      },
    ],
  },
  {
    name: 'inbox: done with the key intake missed, ignored, failed by the plan; a settled row stays settled',
    inbox: [null, 'c2', 'c3', null, null],
    steps: [
      {
        batch: [
          ev(1, 'c1', [{ kind: 'settle', id: 1, status: 'done', reason: null, key: 'c1', now: NOW - 1 }]),
          ev(
            2,
            'c2',
            [{ kind: 'settle', id: 2, status: 'ignored', reason: 'a stale button', key: 'c2', now: NOW }],
            false,
          ),
          ev(
            3,
            'c3',
            [{ kind: 'settle', id: 3, status: 'failed', reason: 'Error: boom', key: 'c3', now: NOW }],
            false,
          ),
          ev(4, null, [{ kind: 'settle', id: 1, status: 'failed', reason: 'too late', key: 'c9', now: NOW }]),
          ev(5, null, []),
        ],
        statuses: ['applied', 'applied', 'applied', 'applied', 'applied'],
      },
    ],
  },
  {
    name: 'a stale revision holds its event and the later events of its conversation; the others apply',
    inbox: ['c1', 'c1', 'c2', 'c1', null],
    steps: [
      { batch: [ev(1, 'c1', [session(sessionRow('c1', 2), undefined)])] },
      {
        batch: [
          ev(2, 'c1', [session(sessionRow('c1', 2), 1, true), call('c1', 2, 0)]),
          ev(3, 'c2', [session(sessionRow('c2', 1), undefined), call('c2', 1, 0)]),
          ev(4, 'c1', [session(sessionRow('c1', 3), 2, true), call('c1', 3, 0)]),
          ev(5, null, []),
        ],
        statuses: ['held', 'applied', 'held', 'applied'],
      },
    ],
  },
  {
    name: 'a first session where one exists already is held',
    inbox: ['c1', 'c1'],
    steps: [
      { batch: [ev(1, 'c1', [session(sessionRow('c1', 1), undefined)])] },
      {
        batch: [
          ev(2, 'c1', [
            session(sessionRow('c1', 1, { flowId: 'other' }), undefined),
            log('c1', 'enter', 'x'),
          ]),
        ],
        statuses: ['held'],
      },
    ],
  },
  {
    name: 'a write the database refuses fails its event (nothing of it stays); its conversation’s later events are held',
    inbox: ['c1', 'c1', 'c2', null],
    steps: [
      {
        batch: [
          ev(1, 'c1', [
            session(sessionRow('c1', 1), undefined),
            call('c1', 1, 0),
            // Outside the type: the outbox's CHECK refuses the kind.
            call('c1', 1, 1, { kind: 'fax' as 'api' }),
          ]),
          ev(2, 'c1', [session(sessionRow('c1', 2), 1, true)]),
          ev(3, 'c2', [session(sessionRow('c2', 1), undefined), task('c2', 'order'), arm('c2', 't', 1, NOW)]),
          ev(
            4,
            null,
            [{ kind: 'settle', id: 4, status: 'ignored', reason: 'nobody', key: null, now: NOW }],
            false,
          ),
        ],
        statuses: ['failed', 'held', 'applied', 'applied'],
      },
    ],
  },
  {
    name: 'a write of an unknown kind (a plan built outside the types) fails its event',
    inbox: ['c1', 'c2'],
    steps: [
      {
        batch: [
          ev(1, 'c1', [session(sessionRow('c1', 1), undefined), { kind: 'nonsense' } as unknown as WriteOp]),
          ev(2, 'c2', [session(sessionRow('c2', 1), undefined)]),
        ],
        statuses: ['failed', 'applied'],
      },
    ],
  },
  {
    name: 'person writes: tags set and taken off, a person who left, campaign recipients settled',
    inbox: ['c1', 'c2'],
    steps: [
      {
        sql:
          'INSERT INTO campaign_recipients (campaign_id, conversation_key, status, not_before, released_at) VALUES ' +
          "('k1', 'c1', 'released', 1, 5), ('k1', 'c2', 'released', 1, 5), ('k1', 'c3', 'queued', 1, NULL)",
      },
      {
        batch: [
          ev(1, 'c1', [
            { kind: 'tags', key: 'c1', add: ['vip', 'member'], remove: [], at: NOW - 2 },
            { kind: 'tags', key: 'c1', add: ['signed_up'], remove: ['member', 'never-had'], at: NOW - 1 },
            { kind: 'tags', key: 'c1', add: ['vip'], remove: [], at: NOW },
            { kind: 'recipient', campaignId: 'k1', key: 'c1', status: 'sent', reason: null, at: NOW },
          ]),
          ev(2, 'c2', [
            { kind: 'left', key: 'c2', reason: 'bot_stopped', at: NOW - 1 },
            { kind: 'left', key: 'c2', reason: 'dialog_removed', at: NOW },
            { kind: 'recipient', campaignId: 'k1', key: 'c2', status: 'skipped', reason: 'busy: x', at: NOW },
            { kind: 'recipient', campaignId: 'k1', key: 'c2', status: 'sent', reason: null, at: NOW },
            { kind: 'recipient', campaignId: 'k1', key: 'c3', status: 'sent', reason: null, at: NOW },
          ]),
        ],
        statuses: ['applied', 'applied'],
      },
    ],
  },
  {
    name: 'an empty batch',
    inbox: ['c1'],
    steps: [{ batch: [], statuses: [] }],
  },
  {
    name: 'a batch settles its own events only, not a pending event between them',
    inbox: ['c1', 'c2', 'c3'],
    steps: [
      {
        batch: [ev(1, 'c1', [session(sessionRow('c1', 1), undefined)]), ev(3, 'c3', [])],
        statuses: ['applied', 'applied'],
      },
    ],
  },
];

// ---- The adapters -------------------------------------------------------------------------------------

/** The tables as both databases read them: plain SQL, the same text for both. */
const PICTURE = {
  sessions:
    'SELECT conversation_key, flow_id, flow_version, status, state_value, snapshot, revision, step_instance, ' +
    'started_revision, chat_id, user_id, locale, started_at, updated_at FROM sessions ORDER BY conversation_key',
  outbox:
    'SELECT id, conversation_key, revision, seq, order_key, chat_id, kind, op, args, ref, priority, ' +
    'idempotency_key, status, attempts, result, error, created_at, sent_at, finished_at FROM outbox ORDER BY id',
  timers:
    'SELECT id, conversation_key, name, due_at, fire_at, step_instance, armed_revision, status, reason, ' +
    'armed_at, settled_at FROM timers ORDER BY id',
  tasks:
    'SELECT id, conversation_key, revision, step_instance, name, ref, input, scope, policy, chat_id, ' +
    'idempotency_key, status, attempts, run_after, result, error, created_at, started_at, finished_at ' +
    'FROM tasks ORDER BY id',
  stepLog:
    'SELECT id, conversation_key, step_instance, session_revision, flow_id, flow_version, step, event, n, at, ' +
    'sample FROM step_log ORDER BY id',
  inbox: 'SELECT id, conversation_key, status, attempts, error, processed_at FROM inbox ORDER BY id',
  tags: 'SELECT conversation_key, tag, tagged_at FROM person_tags ORDER BY conversation_key, tag',
  left: 'SELECT conversation_key, reason, left_at FROM people_left ORDER BY conversation_key',
  recipients:
    'SELECT campaign_id, conversation_key, status, reason, not_before, released_at, settled_at ' +
    'FROM campaign_recipients ORDER BY campaign_id, conversation_key',
} as const;

type Rows = Record<string, unknown>[];
type Tables = Record<keyof typeof PICTURE, Rows>;

interface Adapter {
  name: string;
  /** Empty tables with ids from 1, and the case's inbox rows. */
  reset(inbox: readonly (string | null)[]): Promise<void>;
  apply(batch: PlannedWrites[]): Promise<ApplyResult[]>;
  exec(sql: string): Promise<void>;
  tables(): Promise<Tables>;
}

function sqliteAdapter(): Adapter & { close(): void } {
  let db: Database.Database | undefined;
  const open = () => {
    if (!db) throw new Error('reset first');
    return db;
  };
  return {
    name: 'SQLite (BatchApplier)',
    async reset(inbox) {
      db?.close();
      db = openDatabase({ path: ':memory:' });
      const insert = db.prepare(
        "INSERT INTO inbox (kind, dedupe_key, conversation_key, payload, received_at) VALUES ('update', ?, ?, '{}', 1)",
      );
      for (const [i, key] of inbox.entries()) insert.run(`u${i + 1}`, key);
    },
    async apply(batch) {
      return new BatchApplier(open(), () => NOW).apply(batch);
    },
    async exec(sql) {
      open().exec(sql);
    },
    async tables() {
      const d = open();
      const read = (sql: string) => d.prepare(sql).all() as Rows;
      return Object.fromEntries(Object.entries(PICTURE).map(([t, sql]) => [t, read(sql)])) as Tables;
    },
    close: () => db?.close(),
  };
}

function postgresAdapter(pg: () => PostgresDatabase): Adapter {
  return {
    name: 'PostgreSQL (botflow_apply_batch)',
    async reset(inbox) {
      const { pool } = pg();
      await pool.query(
        'TRUNCATE inbox, sessions, outbox, timers, tasks, step_log, person_tags, people_left, campaign_recipients RESTART IDENTITY',
      );
      for (const [i, key] of inbox.entries()) {
        await pool.query(
          "INSERT INTO inbox (partition, kind, dedupe_key, conversation_key, payload, received_at) VALUES ($1, 'update', $2, $3, '{}', 1)",
          [partitionOf(key), `u${i + 1}`, key],
        );
      }
    },
    apply: (batch) => applyBatch(pg().pool, null, batch, NOW),
    async exec(sql) {
      await pg().pool.query(sql);
    },
    async tables() {
      const entries = await Promise.all(
        Object.entries(PICTURE).map(async ([t, sql]) => [t, (await pg().pool.query(sql)).rows as Rows]),
      );
      return Object.fromEntries(entries) as Tables;
    },
  };
}

/** Marks the reason of a failure the database raised itself (each words it its own way). */
const DATABASE_REASON = '<the database’s own reason>';

/** Ids as ranks (and the task ids a compensation's scope names); the database's own failure reasons marked. */
function normalise(tables: Tables, databaseReasons: ReadonlySet<string>): Tables {
  const ranks = (rows: Rows) => new Map(rows.map((row, i) => [row.id, i + 1]));
  const ranked = (rows: Rows): Rows => rows.map((row, i) => ({ ...row, id: i + 1 }));
  const taskRank = ranks(tables.tasks);
  return {
    sessions: tables.sessions,
    outbox: ranked(tables.outbox),
    timers: ranked(tables.timers),
    tasks: ranked(tables.tasks).map((row) => ({
      ...row,
      scope: String(row.scope).replace(/("compensates":\s*)(\d+)/, (_, head: string, id: string) => {
        return `${head}#${taskRank.get(Number(id)) ?? `unknown ${id}`}`;
      }),
    })),
    stepLog: ranked(tables.stepLog),
    inbox: tables.inbox.map((row) =>
      row.status === 'failed' && databaseReasons.has(String(row.error))
        ? { ...row, error: DATABASE_REASON }
        : row,
    ),
    tags: tables.tags,
    left: tables.left,
    recipients: tables.recipients,
  };
}

/** What a case leaves: each batch's results, then the tables. */
async function run(adapter: Adapter, c: Case) {
  await adapter.reset(c.inbox);
  const results: unknown[][] = [];
  const reasons = new Set<string>();
  for (const step of c.steps) {
    if ('sql' in step) {
      await adapter.exec(step.sql);
      continue;
    }
    const applied = await adapter.apply(step.batch);
    results.push(
      applied.map((r) => {
        if (r.status !== 'failed') return r;
        expect(r.reason, `${adapter.name}: a failure says why`).not.toBe('');
        expect(r.error, `${adapter.name}: a failure carries an Error`).toBeInstanceOf(Error);
        reasons.add(r.reason);
        return { status: 'failed', reason: DATABASE_REASON };
      }),
    );
  }
  return { results, tables: normalise(await adapter.tables(), reasons) };
}

// ---- The suite ----------------------------------------------------------------------------------------

describe('the write-plan table', () => {
  it('applies every kind of write at least once', () => {
    const used = new Set(
      CASES.flatMap((c) => c.steps.flatMap((s) => ('batch' in s ? s.batch.flatMap((e) => e.ops) : []))).map(
        (op) => op.kind,
      ),
    );
    expect(WRITE_OP_KINDS.filter((kind) => !used.has(kind))).toEqual([]);
  });
});

describe.skipIf(!up)('the write plan on SQLite and on PostgreSQL', () => {
  let database: { url: string; drop(): Promise<void> };
  let pg: PostgresDatabase;
  const sqlite = sqliteAdapter();
  const adapters: Adapter[] = [sqlite, postgresAdapter(() => pg)];

  beforeAll(async () => {
    database = await migratedDatabase();
    pg = await openPostgres({ url: database.url, max: 2 });
  });
  afterAll(async () => {
    sqlite.close();
    await pg?.close();
    await database?.drop();
  });

  it('has a branch of botflow_apply_ops for every kind of write', async () => {
    const { rows } = await pg.pool.query<{ def: string }>(
      "SELECT pg_get_functiondef('botflow_apply_ops'::regproc) AS def",
    );
    const handled = [...rows[0]!.def.matchAll(/WHEN '([a-z-]+)' THEN/g)].map((m) => m[1]);
    expect([...WRITE_OP_KINDS].sort()).toEqual([...new Set(handled)].sort());
  });

  it.each(CASES)('$name', async (c) => {
    const pictures = [];
    for (const adapter of adapters) pictures.push(await run(adapter, c));
    const [onSqlite, onPostgres] = pictures;
    // The case does what it says (checked on the reference, the TypeScript applier).
    c.steps.forEach((step, i) => {
      if ('batch' in step && step.statuses) {
        const batchIndex = c.steps.slice(0, i).filter((s) => 'batch' in s).length;
        expect(onSqlite!.results[batchIndex]!.map((r) => (r as ApplyResult).status)).toEqual(step.statuses);
      }
    });
    expect(onPostgres).toEqual(onSqlite);
  });
});
