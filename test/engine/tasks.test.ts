/**
 * Durable tasks on the engine over a real SQLite file: a task started by a step runs off the step, its
 * result continues the dialog exactly once; failures take the error path; a result that comes after the
 * person left the step is recorded and ignored; a task left running by a crash runs again with the same
 * idempotency key.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry, defineTask, type TaskDefinition, TaskError } from '../../src/flows/registry.ts';
import { TaskStore } from '../../src/store/tasks.ts';
import { eventually } from '../support/eventually.ts';
import { botStarted, botStopped, textMessage } from './fixtures.ts';
import { EngineOnDisk, RecordingGateway } from './harness.ts';

const FLOW = `
flow: booking
start: party
triggers: [{ bot_started: true }]
commands:
  cancel: { say: Cancelled., goto: cancelled }
steps:
  party:
    type: input
    say: How many?
    input: integer
    retries: { max: 3, exhausted: { goto: cancelled } }
    save: party
    next: find
  find:
    type: message
    say: Looking…
    do:
      - task: find_slots
        input: { party: "{{party}}" }
        save_as: slots
        timeout: 2s
        retry: { attempts: 3, backoff: 10ms }
        on_error:
          - { code: closed, goto: closed }
          - { say: "Our system is down ({{task_error.code}}).", goto: sorry }
    next: pick
  pick: { type: end, say: "Free: {{slots}}" }
  closed: { type: end, say: Closed that day. }
  sorry: { type: end, say: Sorry. }
  cancelled: { type: end, say: Bye. }
`;

const REGISTRY = defineRegistry({ tasks: { find_slots: () => [] } });
const flow = (): FlowDefinition[] => {
  const r = compileSources([{ file: 'booking.flow.yaml', source: FLOW }], REGISTRY, new Map());
  expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return r.flows;
};
const KEY = 'u:7';

/** Waits until `check` stops throwing (an expectation that holds). */
const until = (check: () => void) =>
  eventually(
    'the expectation to hold',
    () => {
      check();
      return true;
    },
    { tolerateThrows: true, timeoutMs: 3_000 },
  );

let e: EngineOnDisk | undefined;
afterEach(async () => {
  await e?.close();
  e = undefined;
});

function started(tasks: Record<string, TaskDefinition>): { e: EngineOnDisk; gateway: RecordingGateway } {
  const gateway = new RecordingGateway();
  e = new EngineOnDisk(flow, { scheduler: gateway, tasks, now: () => Date.now() });
  e.engine.start();
  return { e, gateway };
}

const say = (d: EngineOnDisk, text: string) => {
  d.deliver(textMessage(7, d.time, text));
  d.engine.notify();
};
const begin = (d: EngineOnDisk) => {
  d.deliver(botStarted(7, d.time));
  d.engine.notify();
};

describe('tasks on the engine', () => {
  it('run off the step with typing shown, and continue the dialog with the result', async () => {
    const calls: unknown[] = [];
    const { e, gateway } = started({
      find_slots: (input, ctx) => {
        calls.push({ input, key: ctx.idempotencyKey, attempt: ctx.attempt, vars: ctx.scope.vars });
        return ['18:00', '19:30'];
      },
    });
    begin(e);
    say(e, '4');
    await until(() => expect(e.texts(KEY)).toEqual(['How many?', 'Looking…', 'Free: 18:00, 19:30']));
    expect(calls).toEqual([
      { input: { party: 4 }, key: expect.stringMatching(/^task:u:7:\d+:0$/), attempt: 1, vars: { party: 4 } },
    ]);
    expect(gateway.calls.filter((c) => c.op === 'sendAction')).toEqual([
      { op: 'sendAction', args: { chat_id: 1007, action: 'typing_on' } },
    ]);
    expect(new TaskStore(e.db).counts()).toMatchObject({ done: 1, pending: 0, running: 0 });
    // Support (and the playground's side panel) see the conversation's tasks.
    expect(e.engine.sessions.get(KEY)?.tasks).toEqual([
      expect.objectContaining({
        name: 'find_slots',
        status: 'done',
        attempts: 1,
        input: { party: 4 },
        result: ['18:00', '19:30'],
      }),
    ]);
    expect(e.engine.prune(7 * 24 * 3_600_000)).toMatchObject({ tasks: 0 });
    // The task settled before now (a wall-clock engine): once it is over 1 ms old, prune(1) takes it.
    const settled = Date.now();
    await eventually('the settled task to be over 1 ms old', () => Date.now() > settled + 1);
    expect(e.engine.prune(1)).toMatchObject({ tasks: 1 });
  });

  it('retry unexpected errors with the same idempotency key, then take the catch-all error path', async () => {
    const keys: string[] = [];
    const { e } = started({
      find_slots: (_input, ctx) => {
        keys.push(`${ctx.attempt}:${ctx.idempotencyKey}`);
        throw new Error('connection refused');
      },
    });
    begin(e);
    say(e, '2');
    await until(() => expect(e.texts(KEY).at(-1)).toBe('Sorry.'));
    expect(e.texts(KEY)).toEqual(['How many?', 'Looking…', 'Our system is down (error).', 'Sorry.']);
    expect(keys.map((k) => k.split(':')[0])).toEqual(['1', '2', '3']);
    expect(new Set(keys.map((k) => k.slice(2))).size).toBe(1);
  });

  it('route a TaskError by its code without retrying it', async () => {
    let runs = 0;
    const { e } = started({
      find_slots: () => {
        runs++;
        throw new TaskError('closed', 'closed on Mondays');
      },
    });
    begin(e);
    say(e, '2');
    await until(() => expect(e.texts(KEY).at(-1)).toBe('Closed that day.'));
    expect(runs).toBe(1);
  });

  it('fail a result that does not fit the task schema, and an unknown task, with clear codes', async () => {
    const { e } = started({
      find_slots: defineTask({
        input: z.object({ party: z.number() }),
        result: z.array(z.string()),
        run: () => [42] as unknown as string[],
      }),
    });
    begin(e);
    say(e, '2');
    await until(() => expect(e.texts(KEY).at(-1)).toBe('Sorry.'));
    expect(e.texts(KEY)).toContain('Our system is down (invalid_result).');
    const row = new TaskStore(e.db).forConversation(KEY)[0]!;
    expect(JSON.parse(row.error!)).toMatchObject({
      code: 'invalid_result',
      message: expect.stringContaining('find_slots'),
    });

    await e.close();
    // A result that cannot be stored (not JSON) is a failure too, never a stuck task.
    const bigint = started({ find_slots: () => [BigInt(1)] });
    begin(bigint.e);
    say(bigint.e, '2');
    await until(() => expect(bigint.e.texts(KEY)).toContain('Our system is down (invalid_result).'));
    await bigint.e.close();
    const other = started({});
    begin(other.e);
    say(other.e, '2');
    await until(() => expect(other.e.texts(KEY)).toContain('Our system is down (unknown_task).'));
  });

  it('record and ignore a result that arrives after the person left the step with /cancel', async () => {
    let finish!: (slots: string[]) => void;
    const { e } = started({ find_slots: () => new Promise<string[]>((r) => (finish = r)) });
    begin(e);
    say(e, '4');
    await until(() => expect(finish).toBeDefined());
    say(e, '/cancel');
    await until(() => expect(e.texts(KEY).at(-1)).toBe('Bye.'));
    // Leaving the step cancelled the task: its late result is kept on the task, and nobody hears of it.
    finish(['18:00']);
    await until(() =>
      expect(new TaskStore(e.db).forConversation(KEY)[0]).toMatchObject({
        status: 'cancelled',
        result: '["18:00"]',
      }),
    );
    await e.engine.drain();
    expect(e.inboxRows().filter((r) => r.kind === 'task_result')).toEqual([]);
    expect(e.texts(KEY)).toEqual(['How many?', 'Looking…', 'Cancelled.', 'Bye.']);
  });

  it('run a task left running by a crash again, with the same idempotency key, and continue once', async () => {
    const keys: string[] = [];
    const gateway = new RecordingGateway();
    e = new EngineOnDisk(flow, { scheduler: gateway, tasks: { find_slots: () => new Promise(() => {}) } });
    const d = e;
    d.engine.start();
    begin(d);
    say(d, '4');
    await until(() => expect(new TaskStore(d.db).counts().running).toBe(1));
    // The process dies with the task running: nothing of its result exists anywhere.
    await d.reopen({
      tasks: {
        find_slots: (_input, ctx) => {
          keys.push(`${ctx.attempt} ${ctx.idempotencyKey}`);
          return ['20:00'];
        },
      },
    });
    d.engine.start();
    await until(() => expect(d.texts(KEY).at(-1)).toBe('Free: 20:00'));
    expect(keys).toEqual([expect.stringMatching(/^2 task:u:7:\d+:0$/)]);
    expect(d.texts(KEY).filter((t) => t === 'Free: 20:00')).toHaveLength(1);
  });

  it('cancel the running task when the person stops the bot: its signal aborts, no result is delivered', async () => {
    let aborted = false;
    const { e } = started({
      find_slots: (_input, ctx) =>
        new Promise((_, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            reject(ctx.signal.reason);
          });
        }),
    });
    begin(e);
    say(e, '4');
    await until(() => expect(new TaskStore(e.db).counts().running).toBe(1));
    e.deliver(botStopped(7, e.time));
    e.engine.notify();
    await until(() => expect(aborted).toBe(true));
    expect(new TaskStore(e.db).forConversation(KEY)[0]).toMatchObject({ status: 'cancelled' });
    await e.engine.drain();
    expect(e.inboxRows().filter((r) => r.kind === 'task_result')).toEqual([]);
    expect(e.texts(KEY)).toEqual(['How many?', 'Looking…']);
  });
});
