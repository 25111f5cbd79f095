/**
 * Leaving the step that started a task cancels it (SQLite): a global command while the task waits for its
 * retry stops the retry; a running attempt's signal aborts and a late result is recorded on the task and
 * never delivered; a task cancelled after an attempt began starts its compensation (`on_cancel`) with the
 * same idempotency key, its input and its late result.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/engine/step/clock.ts';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry, type TaskDefinition, TaskError } from '../../src/flows/registry.ts';
import { TaskStore } from '../../src/store/tasks.ts';
import { eventually } from '../support/eventually.ts';
import { botStarted, textMessage } from './fixtures.ts';
import { EngineOnDisk, RecordingGateway } from './harness.ts';

const FLOW = (onCancel = '') => `
flow: order
start: qty
triggers: [{ bot_started: true }]
commands:
  cancel: { say: Order cancelled., goto: cancelled }
steps:
  qty:
    type: input
    say: How many pizzas?
    input: integer
    retries: { max: 3, exhausted: { goto: cancelled } }
    save: qty
    next: place
  place:
    type: message
    say: Ordering…
    do:
      - task: place_order
        input: { qty: "{{qty}}" }
        save_as: order
        retry: { attempts: 3, backoff: 300ms }${onCancel}
        on_error: { say: Sorry., goto: cancelled }
    next: placed
  placed: { type: end, say: "Ordered: {{order.id}}" }
  cancelled: { type: end, say: Bye. }
`;
const ON_CANCEL = '\n        on_cancel: { task: cancel_order }';
const KEY = 'u:7';

const until = (check: () => void, timeoutMs = 3_000) =>
  eventually(
    'the expectation to hold',
    () => {
      check();
      return true;
    },
    { tolerateThrows: true, timeoutMs },
  );

let e: EngineOnDisk | undefined;
afterEach(async () => {
  await e?.close();
  e = undefined;
});

/** A clock that moves only when told: a retry comes due when the test says so, never on its own. */
class ManualClock implements Clock {
  time = Date.now();
  #timers = new Map<number, { at: number; fn: () => void }>();
  #ids = 0;
  now = () => this.time;
  setTimer = (fn: () => void, ms: number) => {
    const id = ++this.#ids;
    this.#timers.set(id, { at: this.time + ms, fn });
    return id;
  };
  clearTimer = (handle: unknown) => {
    this.#timers.delete(handle as number);
  };
  /** Moves the time on and fires the timers that came due. */
  advance(ms: number): void {
    this.time += ms;
    for (const [id, t] of [...this.#timers])
      if (t.at <= this.time) {
        this.#timers.delete(id);
        t.fn();
      }
  }
}

function started(
  source: string,
  tasks: Record<string, TaskDefinition>,
  clock: Partial<{ clock: Clock }> = {},
): EngineOnDisk {
  const registry = defineRegistry({ tasks });
  const flows = (): FlowDefinition[] => {
    const r = compileSources([{ file: 'order.flow.yaml', source }], registry, new Map());
    expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
    return r.flows;
  };
  e = new EngineOnDisk(flows, { scheduler: new RecordingGateway(), tasks, now: () => Date.now(), ...clock });
  e.engine.start();
  return e;
}
const say = (d: EngineOnDisk, text: string) => {
  d.deliver(textMessage(7, Date.now(), text));
  d.engine.notify();
};
const begin = (d: EngineOnDisk) => {
  d.deliver(botStarted(7, Date.now()));
  d.engine.notify();
};
const rows = (d: EngineOnDisk) => new TaskStore(d.db).forConversation(KEY).reverse();

describe('leaving the step that started a task', () => {
  it('/cancel while the task waits for its retry: no further attempt starts', async () => {
    const attempts: number[] = [];
    const clock = new ManualClock();
    const d = started(
      FLOW(),
      {
        place_order: (_input, ctx) => {
          attempts.push(ctx.attempt);
          throw new TaskError('unavailable', 'the kitchen is busy', { retryable: true });
        },
      },
      { clock },
    );
    begin(d);
    say(d, '2');
    await until(() => expect(rows(d)[0]).toMatchObject({ status: 'pending', attempts: 1 }));
    say(d, '/cancel');
    await until(() => expect(d.texts(KEY).at(-1)).toBe('Bye.'));
    // Past every backoff: a retry still planned would be due now, and drain() waits for due tasks to run.
    clock.advance(60_000);
    await d.engine.drain();
    expect(attempts).toEqual([1]);
    expect(rows(d)[0]).toMatchObject({ status: 'cancelled', attempts: 1 });
    expect(JSON.parse(rows(d)[0]!.error!)).toMatchObject({ code: 'cancelled' });
    expect(d.texts(KEY)).toEqual(['How many pizzas?', 'Ordering…', 'Order cancelled.', 'Bye.']);
  });

  it('aborts the running attempt; a late result is recorded and ignored; on_cancel compensates with it', async () => {
    let finish!: (order: { id: string }) => void;
    const compensations: unknown[] = [];
    const d = started(FLOW(ON_CANCEL), {
      place_order: () =>
        new Promise((resolve) => {
          finish = resolve;
        }),
      cancel_order: (input, ctx) => {
        compensations.push({ input, key: ctx.idempotencyKey, cancelled: ctx.cancelled });
        return { refunded: true };
      },
    });
    begin(d);
    say(d, '3');
    await until(() => expect(finish).toBeDefined());
    say(d, '/cancel');
    await until(() => expect(d.texts(KEY).at(-1)).toBe('Bye.'));
    finish({ id: 'A1' }); // the order went through before the abort reached it
    await until(() => expect(compensations).toHaveLength(1));
    await d.engine.drain();
    const [order, compensation] = rows(d);
    expect(order).toMatchObject({ name: 'place_order', status: 'cancelled', result: '{"id":"A1"}' });
    expect(compensation).toMatchObject({
      name: 'cancel_order',
      status: 'done',
      idempotencyKey: order!.idempotencyKey,
      ref: 'place:task:on_cancel',
    });
    expect(compensations).toEqual([
      {
        input: { qty: 3 },
        key: order!.idempotencyKey,
        cancelled: { task: 'place_order', input: { qty: 3 }, attempts: 1, result: { id: 'A1' } },
      },
    ]);
    expect(d.texts(KEY)).toEqual(['How many pizzas?', 'Ordering…', 'Order cancelled.', 'Bye.']);
  });

  it("aborts a running attempt's signal; its compensation runs once the attempt has ended", async () => {
    const events: string[] = [];
    const d = started(FLOW(ON_CANCEL), {
      place_order: (_input, ctx) =>
        new Promise((_, reject) => {
          events.push('order started');
          ctx.signal.addEventListener('abort', () => {
            events.push('order aborted');
            reject(ctx.signal.reason);
          });
        }),
      cancel_order: (_input, ctx) => {
        events.push(`compensated after attempt ${ctx.cancelled?.attempts}`);
        return null;
      },
    });
    begin(d);
    say(d, '3');
    await until(() => expect(events).toEqual(['order started']));
    say(d, '/cancel');
    await until(() => expect(events).toHaveLength(3));
    expect(events).toEqual(['order started', 'order aborted', 'compensated after attempt 1']);
    await d.engine.drain();
    expect(d.inboxRows().filter((r) => r.kind === 'task_result' && r.status === 'done')).toEqual([]);
  });

  it('compensates a task cancelled between attempts at once, and never cancels the compensation', async () => {
    const compensations: unknown[] = [];
    const d = started(FLOW(ON_CANCEL), {
      place_order: () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:9');
      },
      cancel_order: (_input, ctx) => {
        compensations.push(ctx.cancelled);
        return null;
      },
    });
    begin(d);
    say(d, '1');
    await until(() => expect(rows(d)[0]).toMatchObject({ status: 'pending', attempts: 1 }));
    say(d, '/cancel');
    await until(() => expect(compensations).toHaveLength(1));
    expect(compensations[0]).toEqual({ task: 'place_order', input: { qty: 1 }, attempts: 1 });
    // A new order started and left at once does not touch the first one's compensation.
    say(d, '/start');
    await d.engine.drain();
    expect(rows(d).map((r) => [r.name, r.status])).toEqual([
      ['place_order', 'cancelled'],
      ['cancel_order', 'done'],
    ]);
  });

  it("the step's timeout (idle) leaving the step cancels its task as a command does", async () => {
    const clock = new ManualClock();
    const events: string[] = [];
    const d = started(
      FLOW().replace(
        '    say: Ordering…\n',
        '    say: Ordering…\n    idle: { after: 1m, say: Too slow., goto: cancelled }\n',
      ),
      {
        place_order: (_input, ctx) =>
          new Promise((_, reject) => {
            events.push('order started');
            ctx.signal.addEventListener('abort', () => {
              events.push('order aborted');
              reject(ctx.signal.reason);
            });
          }),
      },
      { clock },
    );
    begin(d);
    say(d, '2');
    await until(() => expect(events).toEqual(['order started']));
    clock.advance(61_000);
    await until(() => expect(events).toEqual(['order started', 'order aborted']));
    await d.engine.drain();
    expect(rows(d)[0]).toMatchObject({ status: 'cancelled', attempts: 1 });
    expect(d.texts(KEY)).toEqual(['How many pizzas?', 'Ordering…', 'Too slow.', 'Bye.']);
  });

  it('a task that never started an attempt needs no compensation', async () => {
    const compensations: unknown[] = [];
    const d = started(FLOW(ON_CANCEL), {
      place_order: () => ({ id: 'B2' }),
      cancel_order: () => {
        compensations.push(1);
        return null;
      },
    });
    begin(d);
    say(d, '2');
    await until(() => expect(d.texts(KEY).at(-1)).toBe('Ordered: B2'));
    await d.engine.drain();
    expect(compensations).toEqual([]);
    expect(rows(d).map((r) => r.status)).toEqual(['done']);
  });
});
