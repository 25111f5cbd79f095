/**
 * The cancellation sample of docs/flows.md, run as written: its `place_order` step (retry on `unavailable`,
 * `on_cancel: { task: cancel_order }`) in a small pizza flow, and its registry loaded through tsx as botflow
 * loads a project's registry.ts (with its own copy of botflow), calling an order system on 127.0.0.1. The
 * kitchen is busy, the person sends /cancel while the retry waits: no second order is placed, and the
 * compensation asks the order system to cancel what was made under the same idempotency key.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { importCode } from '../../src/flows/import-code.ts';
import { compileSources } from '../../src/flows/load.ts';
import type { Registry } from '../../src/flows/registry.ts';
import { TaskStore } from '../../src/store/tasks.ts';
import { eventually } from '../support/eventually.ts';
import { botStarted, textMessage } from './fixtures.ts';
import { EngineOnDisk, RecordingGateway } from './harness.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const page = readFileSync(join(repo, 'docs/flows.md'), 'utf8').split('\n');

/** The fenced block of docs/flows.md in `lang` that holds `marker`. */
function block(lang: string, marker: string): string {
  const at = page.findIndex((l) => l.includes(marker));
  expect(at, `docs/flows.md no longer holds ${marker}`).toBeGreaterThan(0);
  let open = at;
  while (page[open] !== `\`\`\`${lang}`) open--;
  const close = page.findIndex((l, i) => i > at && l === '```');
  return page.slice(open + 1, close).join('\n');
}

const requests: { method: string; url: string; key: string | undefined }[] = [];
let server: Server | undefined;
const work = mkdtempSync(join(tmpdir(), 'botflow-docs-cancel-'));
let engine: EngineOnDisk | undefined;
afterAll(async () => {
  await engine?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  rmSync(work, { recursive: true, force: true });
});

it('docs/flows.md: /cancel while the order waits for its retry places no order and compensates it', async () => {
  const STEP = block('yaml', 'on_cancel: { task: cancel_order } # /cancel meanwhile');
  const REGISTRY = block('ts', 'cancel_order: async');
  server = createServer((req, res) => {
    requests.push({ method: req.method!, url: req.url!, key: req.headers['idempotency-key'] as string });
    req.resume();
    if (req.method === 'POST')
      res.writeHead(503).end(); // the kitchen is busy: retried (on: [unavailable])
    else res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/orders`;

  // The page's registry, its order system moved to this test's server, importing this checkout's sources.
  const file = join(work, 'registry.ts');
  writeFileSync(
    file,
    REGISTRY.replace('https://orders.example/api/orders', base).replace(
      "from 'botflow-engine'",
      `from '${join(repo, 'src/index.ts')}'`,
    ),
  );
  writeFileSync(join(work, 'package.json'), '{ "type": "module" }');
  const registry = (await importCode(file)).default as Registry;

  const source = `flow: pizza
start: pick_pizza
triggers: [{ bot_started: true }]
commands:
  cancel: { say: Order cancelled., goto: bye }
steps:
  pick_pizza:
    type: input
    say: Which pizza?
    input: text
    retries: { max: 3, exhausted: { goto: bye } }
    save: pizza
    next: place_order
${STEP.replace(/^/gm, '  ')}
  placed: { type: end, say: "Order {{order.id}} placed." }
  bye: { type: end, say: Bye. }
`;
  const compiled = compileSources([{ file: 'pizza.flow.yaml', source }], registry, new Map());
  expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
  engine = new EngineOnDisk(() => compiled.flows, {
    scheduler: new RecordingGateway(),
    tasks: registry.tasks,
  });
  engine.engine.start();
  const e = engine;
  const send = (update: unknown) => {
    e.deliver(update as never);
    e.engine.notify();
  };
  send(botStarted(7, e.time));
  send(textMessage(7, e.time, 'Margherita'));
  await eventually('the first attempt to reach the kitchen', () => requests.length === 1, 5_000);
  send(textMessage(7, e.time, '/cancel'));
  await eventually('the compensation', () => requests.some((r) => r.method === 'DELETE'), 10_000);
  // The virtual clock moves past the retry's backoff (2s): a retry still planned would come due and place
  // the order again before the engine is idle.
  e.advance(2_500);
  await e.engine.tick();
  await e.engine.drain();

  const key = requests[0]!.key!;
  expect(requests).toEqual([
    { method: 'POST', url: '/api/orders', key },
    { method: 'DELETE', url: `/api/orders/by-key/${key}`, key: undefined },
  ]);
  const tasks = new TaskStore(e.db).forConversation('u:7').reverse();
  expect(tasks.map((t) => [t.name, t.status])).toEqual([
    ['place_order', 'cancelled'],
    ['cancel_order', 'done'],
  ]);
  expect(JSON.parse(tasks[1]!.result!)).toEqual({ undone: 'place_order' });
  expect(e.texts('u:7')).toEqual(['Which pizza?', 'Placing your order…', 'Order cancelled.', 'Bye.']);
}, 30_000);
