/**
 * The funnel, end to end on a real SQLite file: people go through a flow file on the engine (some give
 * refused answers, some stop half way, one starts over, one finishes), the step transactions record their
 * visits, and `botflow stats` reads the file read-only and tells how far they got.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { command } from '../../src/cli/stats-command.ts';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { loadFlows } from '../../src/flows/load.ts';
import type { FlowFunnel } from '../../src/runtime/funnel.ts';
import { botStarted, textMessage } from '../engine/fixtures.ts';
import { EngineOnDisk } from '../engine/harness.ts';
import { consoleOutput } from '../support/console-output.ts';

const FLOW = `flow: order
start: size
triggers: [{ bot_started: true }]
steps:
  size:
    type: input
    say: How many?
    input: integer
    retries: { max: 3, exhausted: { goto: sorry } }
    save: size
    next: address
  address:
    type: input
    say: Where to?
    input: text
    retries: { max: 2, exhausted: { goto: sorry } }
    save: address
    next: done
  sorry: { type: end, say: Let us try another time. }
  done: { type: end, say: Thanks. }
`;

const output = consoleOutput();
const stats = (args: string[]) => output.run(command, args);
let h: EngineOnDisk | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A bot folder with the order flow, and an engine on its database. */
async function bot(): Promise<{ dir: string; flows: FlowDefinition[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-stats-'));
  mkdirSync(join(dir, 'flows'));
  writeFileSync(join(dir, 'flows', 'order.flow.yaml'), FLOW);
  const { flows, problems } = await loadFlows(join(dir, 'flows'));
  expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
  return { dir, flows };
}

describe('botflow stats', () => {
  it('tells how many reached each step, where they stopped, the retries and the time per step', async () => {
    const { dir, flows } = await bot();
    h = new EngineOnDisk(() => flows);
    const say = (user: number, text: string, afterMs = 10_000) => {
      h!.advance(afterMs);
      h!.deliver(textMessage(user, h!.time, text));
      h!.engine.processPending();
    };
    for (const user of [1, 2, 3, 4, 5]) h.deliver(botStarted(user, h.time));
    h.engine.processPending();
    // 1 finishes: one refused size, then 20 s on address.
    say(1, 'many');
    say(1, '2');
    say(1, 'Main St 1', 20_000);
    // 2 answers the size and waits at address.
    say(2, '3');
    // 3 gives up on the size: three refused answers lead to `sorry`.
    say(3, 'a');
    say(3, 'b');
    say(3, 'c');
    // 4 is ended by support while at size; 5 never answers.
    expect(h.engine.sessions.end('u:4')).toBe(true);
    // 1 comes back after finishing: a second session.
    h.deliver(botStarted(1, h.time + 1));
    h.engine.processPending();
    h.db.close();

    const db = h.path;
    expect(await stats(['--db', db, '--json', join(dir, 'flows')])).toBe(0);
    const [funnel] = JSON.parse(output.lines.join('\n')) as FlowFunnel[];
    expect(funnel).toMatchObject({ flowId: 'order', sessions: 6, ended: 2 });
    const step = Object.fromEntries(funnel!.steps.map((s) => [s.step, s]));
    expect(funnel!.steps.map((s) => s.step)).toEqual(['size', 'address', 'sorry', 'done']);
    expect(step.size).toMatchObject({
      reached: 6,
      waiting: 2, // 5, and 1's second session
      stopped: 1, // 4
      retries: 4,
      retriedSessions: 2,
      medianMs: 50_000, // one clock for all: 1 left after 20 s, 2 after 50 s, 3 (exhausted) after 80 s
    });
    expect(step.address).toMatchObject({ reached: 2, waiting: 1, retries: 0, medianMs: 20_000 });
    expect(step.sorry).toMatchObject({ reached: 1, ended: 1 });
    expect(step.done).toMatchObject({ reached: 1, ended: 1, medianMs: null });

    expect(await stats(['--db', db, join(dir, 'flows')])).toBe(0);
    const text = output.lines.join('\n');
    expect(text).toContain('order: 6 conversations, 2 reached an end (33%)');
    expect(text).toMatch(/size\s+6\s+100%\s+2\s+1\s+0\s+4 \(2 people\)\s+50 s/);
  });

  it('counts the steps people pass through without stopping (a message that moves on, a branch) as reached', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-stats-'));
    mkdirSync(join(dir, 'flows'));
    writeFileSync(
      join(dir, 'flows', 'quiz.flow.yaml'),
      `flow: quiz
start: hello
triggers: [{ bot_started: true }]
steps:
  hello: { type: message, say: Hello!, next: ask }
  ask:
    type: input
    say: How old are you?
    input: integer
    retries: { max: 2, exhausted: { goto: bye } }
    save: age
    next: sort
  sort:
    type: branch
    cases: [{ when: { var: age, ge: 18 }, goto: grown }]
    else: young
  grown: { type: message, say: Welcome., next: bye }
  young: { type: end, say: Come back later. }
  bye: { type: end, say: Bye. }
`,
    );
    const { flows, problems } = await loadFlows(join(dir, 'flows'));
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    h = new EngineOnDisk(() => flows);
    for (const user of [1, 2, 3]) h.deliver(botStarted(user, h.time));
    h.engine.processPending();
    h.deliver(textMessage(1, h.time, '30'));
    h.deliver(textMessage(2, h.time, '12'));
    h.engine.processPending();
    h.db.close();

    expect(await stats(['--db', h.path, '--json', join(dir, 'flows')])).toBe(0);
    const [funnel] = JSON.parse(output.lines.join('\n')) as FlowFunnel[];
    const step = Object.fromEntries(funnel!.steps.map((s) => [s.step, s]));
    expect(funnel).toMatchObject({ sessions: 3, ended: 2 });
    expect(step.hello).toMatchObject({ reached: 3, waiting: 0, stopped: 0, medianMs: 0 });
    expect(step.ask).toMatchObject({ reached: 3, waiting: 1 });
    expect(step.sort).toMatchObject({ reached: 2, waiting: 0, stopped: 0, medianMs: 0 });
    expect(step.grown).toMatchObject({ reached: 1, waiting: 0 });
    expect(step.young).toMatchObject({ reached: 1, ended: 1 });
    expect(step.bye).toMatchObject({ reached: 1, ended: 1 });
  });

  it('counts run-time failures at the step that failed; the person is answered and can go on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-stats-'));
    mkdirSync(join(dir, 'flows'));
    writeFileSync(
      join(dir, 'flows', 'price.flow.yaml'),
      `flow: price
start: ask
triggers: [{ bot_started: true }]
steps:
  ask:
    type: input
    say: How many?
    input: integer
    retries: { max: 2, exhausted: { goto: bye } }
    save: qty
    next: total
  total:
    type: message
    set: { total: "= qtty * 12" }
    on_error: { say: "Sorry, we could not price that.", goto: ask }
    say: "Total: {{total}}"
    next: bye
  bye: { type: end, say: Bye. }
`,
    );
    const { flows, problems } = await loadFlows(join(dir, 'flows'));
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    const logged: string[] = [];
    const logger = (await import('pino')).default(
      { level: 'error' },
      { write: (line: string) => logged.push(line) },
    );
    h = new EngineOnDisk(() => flows, { logger });
    h.deliver(botStarted(1, h.time));
    h.engine.processPending();
    h.deliver(textMessage(1, h.time, '2'));
    h.engine.processPending();
    h.deliver(textMessage(1, h.time, '3'));
    h.engine.processPending();
    // Answered each time, never left hanging: the on_error route asks again.
    expect(h.texts('u:1')).toEqual([
      'How many?',
      'Sorry, we could not price that.',
      'How many?',
      'Sorry, we could not price that.',
      'How many?',
    ]);
    const failure = logged.map((l) => JSON.parse(l)).find((l) => l.step === 'total');
    expect(failure).toMatchObject({
      flow: 'price',
      recovery: 'route',
      where: expect.stringMatching(/price\.flow\.yaml:12$/),
    });
    expect(failure.msg).toMatch(/flow "price" failed at step total \(.*price\.flow\.yaml:12\): .*qtty/);
    h.db.close();

    expect(await stats(['--db', h.path, '--json', join(dir, 'flows')])).toBe(0);
    const [funnel] = JSON.parse(output.lines.join('\n')) as FlowFunnel[];
    const step = Object.fromEntries(funnel!.steps.map((s) => [s.step, s]));
    expect(step.total).toMatchObject({ reached: 0, failures: 2 });
    expect(step.ask).toMatchObject({ waiting: 1, failures: 0 });
    expect(await stats(['--db', h.path, join(dir, 'flows')])).toBe(0);
    expect(output.lines.join('\n')).toMatch(/total\s+0\s+0%\s+0\s+0\s+0\s+0\s+2\s+–/);
  });

  it('says what is wrong with a missing database, an old one, an unknown flow or bad --days', async () => {
    const { dir } = await bot();
    expect(await stats(['--db', join(dir, 'none.db')])).toBe(1);
    expect(output.lines.join('\n')).toContain('no database at');
    expect(await stats(['--days', '0'])).toBe(2);
    expect(output.lines.join('\n')).toContain('--days takes a number of days above 0, got "0"');

    const SQLite = (await import('better-sqlite3')).default;
    const old = new SQLite(join(dir, 'old.db'));
    old.exec('CREATE TABLE sessions (conversation_key TEXT)');
    old.close();
    expect(await stats(['--db', join(dir, 'old.db')])).toBe(1);
    expect(output.lines.join('\n')).toContain('has no step log yet: botflow run (or botflow migrate --db');

    h = new EngineOnDisk(() => []);
    h.db.close();
    expect(await stats(['--db', h.path, '--flow', 'nope', join(dir, 'flows')])).toBe(2);
    expect(output.lines.join('\n')).toContain('no flow "nope" (flows: order)');
    expect(await stats(['--db', h.path, join(dir, 'flows')])).toBe(0);
    expect(output.lines.join('\n')).toBe('no conversations recorded yet');
  });
});
