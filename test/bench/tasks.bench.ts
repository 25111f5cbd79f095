// `npm run bench -- tasks`: durable tasks end to end, as `botflow run` runs them (writer thread,
// synchronous=FULL on a real file). Conversations each start a 50 ms task from a flow file; the task runner
// runs 100 at a time; each result comes back through the inbox and the step after it plans the reply.
// Figures: tasks finished per second, and the time from a task's result to its reply committed to the
// outbox (p50/p99). Sending the replies is the scheduler's job at the platform's limits (30/s, 2/s per
// chat, measured by `npm run bench -- client`): here the replies stay in the outbox, as in the engine
// bench, so the figures are botflow's own and no request is made at all. Prints figures, then ONE JSON line.

import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createEngine } from '../../src/engine/engine.ts';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { InboxWriter } from '../../src/inbox/inbox-writer.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { openDatabase } from '../../src/store/database.ts';
import { InboxStore } from '../../src/store/inbox.ts';
import { startWriterThread } from '../../src/store/sqlite/writer-thread.ts';

const FLOW = `
flow: work
start: go
triggers: [{ bot_started: true }]
steps:
  go:
    type: message
    say: Working on it…
    do:
      - task: work
        input: { n: "{{start_payload}}" }
        save_as: r
        on_error: failed
    next: done
  done: { type: end, say: "Done: {{r}}" }
  failed: { type: end, say: Failed. }
`;

const CONVERSATIONS = 6_000;
const CONCURRENCY = 100;
const TASK_MS = 50;

const finishedAt = new Map<string, number>();
let firstStart = Number.POSITIVE_INFINITY;
const registry = defineRegistry({
  tasks: {
    work: async (input: { n: string }, ctx) => {
      firstStart = Math.min(firstStart, performance.now());
      await delay(TASK_MS);
      finishedAt.set(ctx.scope.conversation, performance.now());
      return input.n;
    },
  },
});

function botStarted(id: number, t: number): string {
  return JSON.stringify({
    update_type: 'bot_started',
    timestamp: t,
    chat_id: 700_000 + id,
    user: { user_id: id, first_name: `P${id}`, is_bot: false, last_activity_time: 1 },
    payload: `job-${id}`,
    user_locale: 'en',
  });
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-tasks-bench-'));
  const path = join(dir, 'tasks.db');
  try {
    const compiled = compileSources([{ file: 'work.flow.yaml', source: FLOW }], registry, new Map());
    if (compiled.problems.some((p) => p.severity === 'error'))
      throw new Error(JSON.stringify(compiled.problems));
    const db = openDatabase({ path });
    const writer = await startWriterThread({ path });
    const engine = createEngine({
      db,
      flows: compiled.flows,
      secret: 'bench-secret-for-button-signing',
      writer,
      tasks: registry.tasks,
      taskConcurrency: CONCURRENCY,
    });
    const replyAt = new Map<string, number>();
    engine.on('step', (o) => {
      if (o.kind === 'task_result' && o.conversationKey) replyAt.set(o.conversationKey, performance.now());
    });
    const intake = new InboxWriter({
      inbox: new InboxStore(db),
      commit: (entries) => writer.append(entries),
      onAccepted: () => engine.notify(),
    });
    engine.start();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const accepted: Promise<unknown>[] = [];
    let t = Date.now();
    for (let id = 1; id <= CONVERSATIONS; id++)
      accepted.push(intake.submit(updateEntry(botStarted(id, ++t))));
    await intake.flush();
    await Promise.all(accepted);
    while (replyAt.size < CONVERSATIONS) await delay(20);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    await engine.drain();
    await engine.stop();
    await writer.close();
    const done = (db.prepare("SELECT count(*) AS n FROM tasks WHERE status = 'done'").get() as { n: number })
      .n;
    const replies = (
      db.prepare("SELECT count(*) AS n FROM outbox WHERE args LIKE '%Done: job-%'").get() as { n: number }
    ).n;
    db.close();
    const lags = [...replyAt].map(([key, at]) => at - (finishedAt.get(key) ?? at)).sort((a, b) => a - b);
    // Tasks per second while tasks run: from the first start to the last result (the runner's own pace;
    // the whole run, intake of the 6,000 starts included, is `end_to_end_per_s`).
    const lastFinish = Math.max(...finishedAt.values());
    const tasksPerSecond = Math.round(CONVERSATIONS / ((lastFinish - firstStart) / 1000));
    const endToEnd = Math.round(CONVERSATIONS / seconds);
    console.log(
      `${CONVERSATIONS} conversations, each one ${TASK_MS} ms task, ${CONCURRENCY} at a time (limit ${Math.round((CONCURRENCY * 1000) / TASK_MS)}/s)`,
    );
    console.log(`tasks done: ${done}; replies committed to the outbox: ${replies}`);
    console.log(
      `${tasksPerSecond} tasks/s while tasks run; ${endToEnd} conversations/s end to end (${seconds.toFixed(2)} s, CPU ${Math.round((cpu.user + cpu.system) / CONVERSATIONS)} µs per conversation)`,
    );
    console.log(
      `task result → reply committed: p50 ${quantile(lags, 0.5).toFixed(1)} ms, p99 ${quantile(lags, 0.99).toFixed(1)} ms`,
    );
    console.log(`load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`);
    console.log(
      JSON.stringify({
        bench: 'tasks',
        tasks_per_s: tasksPerSecond,
        task_to_reply_p99_ms: Math.round(quantile(lags, 0.99) * 10) / 10,
        task_to_reply_p50_ms: Math.round(quantile(lags, 0.5) * 10) / 10,
        end_to_end_per_s: endToEnd,
        conversations: CONVERSATIONS,
        concurrency: CONCURRENCY,
        task_ms: TASK_MS,
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
