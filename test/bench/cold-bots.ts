// `node --expose-gc --import tsx test/bench/cold-bots.ts [N]`: N cold webhook bots (default 1000) on SQLite
// in one deployment, against one sandbox hosting them all (in this process). Prints one JSON line: the
// time until startDeployment returned and until /readyz said ready (every subscription in place), the RSS
// and heap per idle (cold) bot beyond the sandbox's, the first reply of a cold bot (its warm-up), and a
// restart's time to ready (subscriptions already in place).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/runtime/config.ts';
import { defaultParts } from '../../src/runtime/default-parts.ts';
import { startDeployment } from '../../src/runtime/deployment.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import { flowsSaying, freePort, tempBotsCatalog } from '../support/bots.ts';
import { eventually } from '../support/eventually.ts';

const n = Number(process.argv[2] ?? 1000);
const dir = mkdtempSync(join(tmpdir(), 'botflow-cold-bench-'));
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const names = Array.from({ length: n }, (_, i) => `b${String(i).padStart(4, '0')}`);
const tokens = names.map((name, i) => `${name}-${(i * 7919 + 104729).toString(16)}-cold-bench-token`);
const sandbox = await startSandbox({
  limits: false,
  bots: names.map((name, i) => ({ name, token: tokens[i]! })),
});
const env: NodeJS.ProcessEnv = Object.fromEntries(names.map((name, i) => [`T_${name}`, tokens[i]]));
const port = await freePort();
const flows = flowsSaying(dir, 'cold', 'Hello from a cold bot');
const config = loadConfig({
  env,
  cwd: dir,
  values: {
    mode: 'webhook',
    webhook: { host: '127.0.0.1', port, url: `http://127.0.0.1:${port}/hooks`, secret: 'bench_secret' },
    database: { path: join(dir, 'data', 'botflow.db') },
    bots: names.map((name) => ({ name, token: { env: `T_${name}` }, baseUrl: sandbox.baseUrl, flows })),
  },
});
const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
const logger = createLogger({ level: 'warn', destination: quiet });
const catalog = tempBotsCatalog();
await settle();
const before = process.memoryUsage();
const t0 = performance.now();
const deployment = await startDeployment(config, { logger, parts: defaultParts(), env, catalog });
const returned = performance.now() - t0;
await eventually(
  'the deployment ready',
  async () => (await fetch(`${deployment.address}/readyz`)).status === 200,
  120_000,
);
const ready = performance.now() - t0;
await settle();
const after = process.memoryUsage();
const idle = deployment.bots().filter((bot) => bot.status === 'idle').length;

// A cold bot's first reply: its warm-up (app start, file opened) and the flow's greeting.
const person = await sandbox.control.createUser({ first_name: 'Ann' });
const t1 = performance.now();
await sandbox.control.startBot(person.user_id);
await sandbox.control.waitForView(person.user_id, 'dialog', (v) => v.messages.some((m) => m.from === 'bot'), {
  timeoutMs: 30_000,
});
const firstReply = performance.now() - t1;
await deployment.stop();

// A restart: the catalog keeps every subscription's digest, so no bot asks the platform anything.
const t2 = performance.now();
const restarted = await startDeployment(config, { logger, parts: defaultParts(), env, catalog });
await eventually(
  'the restarted deployment ready',
  async () => (await fetch(`${restarted.address}/readyz`)).status === 200,
  120_000,
);
const restart = performance.now() - t2;
await restarted.stop();
await catalog.close();
await sandbox.close();
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    bench: 'cold-bots',
    bots: n,
    idle,
    startup_returned_s: +(returned / 1000).toFixed(2),
    startup_s: +(ready / 1000).toFixed(2),
    rss_per_idle_bot_kb: Math.round((after.rss - before.rss) / n / 1024),
    heap_per_idle_bot_kb: Math.round((after.heapUsed - before.heapUsed) / n / 1024),
    cold_first_reply_ms: Math.round(firstReply),
    restart_s: +(restart / 1000).toFixed(2),
  }),
);
