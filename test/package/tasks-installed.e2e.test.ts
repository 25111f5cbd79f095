/**
 * Tasks as an installed project runs them: the packed tarball in a new project whose `flows/registry.ts`
 * (TypeScript, loaded through tsx with its own copy of botflow) imports `TaskError` from `botflow-engine`
 * and throws coded errors from a task that calls a local HTTP backend. `botflow run` against `botflow
 * sandbox`: the person sees the route for the code, and `retry.on: [unavailable]` retried. One Node (the
 * system's): the copy problem is the same on every version.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { firstLine, installTarball, nodeEnvironment, packTarball, run } from './packing.ts';

const work = mkdtempSync(join(tmpdir(), 'botflow-tasks-packed-'));
const children: ChildProcess[] = [];
let backend: Server | undefined;
/** The orders the backend received, in order, with the idempotency key they carried. */
const orders: { pizza: string; key: string }[] = [];

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await new Promise((resolve) => (backend ? backend.close(resolve) : resolve(undefined)));
  rmSync(work, { recursive: true, force: true });
});

const REGISTRY = `
import { defineRegistry, TaskError } from 'botflow-engine';

const backend = process.env.PIZZA_BACKEND;

export default defineRegistry({
  validators: {
    not_a_number: (value) => !/^\\s*\\d+\\s*$/.test(String(value)) || 'a number is not a name',
  },
  tasks: {
    place_order: async (input: { pizza: string }, { idempotencyKey, signal }) => {
      const res = await fetch(\`\${backend}/orders\`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body: JSON.stringify(input),
        signal,
      });
      if (res.status === 409) throw new TaskError('sold_out', 'no more of it today');
      if (res.status === 503) throw new TaskError('unavailable', 'the kitchen is busy');
      return (await res.json()) as { id: string };
    },
  },
});
`;

const FLOW = `flow: pizza
start: place
triggers: [{ bot_started: true }]
steps:
  place:
    type: message
    say: Ordering a Margherita…
    do:
      - task: place_order
        input: { pizza: Margherita }
        save_as: placed
        retry: { attempts: 3, backoff: 200ms, on: [unavailable] }
        on_error:
          - { code: sold_out, say: "Sold out, sorry.", goto: bye }
          - { say: "Could not order ({{task_error.code}}).", goto: bye }
    next: done
  done: { type: end, say: "Order {{placed.id}} is on its way." }
  bye: { type: end, say: Bye. }
`;

describe('tasks of an installed project', () => {
  const folder = join(work, 'user');
  const app = join(folder, 'app');
  const botflow = join(folder, 'node_modules', '.bin', 'botflow');
  let env: NodeJS.ProcessEnv;
  let backendUrl = '';

  beforeAll(async () => {
    // The kitchen: busy once, then out of Margherita.
    backend = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        orders.push({
          ...(JSON.parse(body) as { pizza: string }),
          key: String(req.headers['idempotency-key']),
        });
        res.writeHead(orders.length === 1 ? 503 : 409).end();
      });
    });
    await new Promise<void>((resolve) => backend!.listen(0, '127.0.0.1', resolve));
    backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
    env = await nodeEnvironment(work, 'system');
    const { tarball } = await packTarball(work);
    await installTarball(folder, tarball, env);
    await run(botflow, ['init', 'app'], { cwd: folder, env });
    writeFileSync(join(app, 'flows', 'registry.ts'), REGISTRY);
    writeFileSync(join(app, 'flows', 'pizza.flow.yaml'), FLOW);
    // The pizza flow answers bot_started instead of the template's feedback flow.
    unlinkSync(join(app, 'flows', 'feedback.flow.yaml'));
    rmSync(join(app, 'flows', 'tests'), { recursive: true, force: true });
  }, 900_000);

  it('botflow check accepts the TypeScript registry and its tasks', async () => {
    const check = await run(botflow, ['check'], { cwd: app, env });
    expect(check.stdout).toContain('0 error(s)');
    expect(readFileSync(join(app, 'flows', 'registry.ts'), 'utf8')).toContain("from 'botflow-engine'");
  }, 120_000);

  it('routes a coded TaskError from the registry copy, after retrying the retryable code', async () => {
    const token = 'tasks-smoke-token';
    const sandbox = spawn(botflow, ['sandbox', '--token', token], { cwd: app, env });
    children.push(sandbox);
    const { baseUrl } = JSON.parse(await firstLine(sandbox, (l) => l.startsWith('{'), 'botflow sandbox')) as {
      baseUrl: string;
    };
    const bot = spawn(botflow, ['run'], {
      cwd: app,
      env: {
        ...env,
        PIZZA_BACKEND: backendUrl,
        BOTFLOW_TOKEN: token,
        BOTFLOW_BASE_URL: baseUrl,
        BOTFLOW_MODE: 'polling',
        BOTFLOW_DATABASE_PATH: join(app, 'bot.db'),
      },
    });
    children.push(bot);
    let log = '';
    bot.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
    });
    await firstLine(bot, (l) => l.includes('long polling started'), 'botflow run');
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${baseUrl}/_sandbox${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await response.json()) as Record<string, unknown>;
    };
    const person = await post('/users', { first_name: 'Ann' });
    await post('/start', { user_id: person.user_id });
    let said: string[] = [];
    const texts = await eventually(
      'the person to read the route of sold_out',
      async () => {
        const view = (await (await fetch(`${baseUrl}/_sandbox/view?user_id=${person.user_id}`)).json()) as {
          messages: Array<{ from: string; text: string }>;
        };
        said = view.messages.filter((m) => m.from === 'bot').map((m) => m.text);
        return said.includes('Bye.') ? said : undefined;
      },
      30_000,
    ).catch((error: Error) => {
      throw new Error(
        `${error.message}; the bot said ${JSON.stringify(said)}; orders ${JSON.stringify(orders)}\n${log}`,
      );
    });
    expect(texts).toEqual(['Ordering a Margherita…', 'Sold out, sorry.', 'Bye.']);
    // unavailable (503) was tried again, with the same idempotency key; sold_out (409) was not.
    expect(orders.map((o) => o.pizza)).toEqual(['Margherita', 'Margherita']);
    expect(new Set(orders.map((o) => o.key)).size).toBe(1);
    const exited = new Promise<number | null>((resolve) => bot.once('exit', (code) => resolve(code)));
    bot.kill('SIGTERM');
    expect(await exited).toBe(0);
    sandbox.kill('SIGTERM');
  }, 120_000);
});
