/**
 * A deployment process of the bots benchmark (bots-deployment.ts, bots-busy.ts): reads its spec (a JSON
 * file named by argv[2]: folder, store, sandbox baseUrl, port, bot names; each bot's token in env
 * `BB_T_<i>`), starts the deployment (startDeployment, as `botflow run` with `bots:` does) and speaks JSON
 * lines on stdout: `ready` (startup seconds to /readyz 200, bot statuses, RSS after settling), then answers
 * `stats` on stdin (RSS, CPU µs) and `stop`. The deployment's own log lines (warn and up) go to stderr.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfig } from '../../src/runtime/config.ts';
import { defaultParts } from '../../src/runtime/default-parts.ts';
import { startDeployment } from '../../src/runtime/deployment.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { openSqliteBotsCatalog } from '../../src/store/bots-catalog.ts';

export interface ChildSpec {
  dir: string;
  store: 'sqlite' | 'postgres';
  databaseUrl?: string;
  baseUrl: string;
  mode: 'webhook' | 'polling';
  port: number;
  names: string[];
  flows: string;
  /** The catalog file (shared by the processes of one deployment). */
  catalog: string;
  settleMs: number;
}

const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ChildSpec;
const say = (event: object) => process.stdout.write(`${JSON.stringify(event)}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const gc = (globalThis as { gc?: () => void }).gc;

const config = loadConfig({
  env: process.env,
  cwd: spec.dir,
  values: {
    mode: spec.mode,
    ...(spec.mode === 'webhook'
      ? {
          webhook: {
            host: '127.0.0.1',
            port: spec.port,
            url: `http://127.0.0.1:${spec.port}/hooks`,
            secret: 'bots_bench_secret',
          },
        }
      : {}),
    database:
      spec.store === 'postgres' ? { url: spec.databaseUrl } : { path: join(spec.dir, 'data', 'botflow.db') },
    bots: spec.names.map((name, i) => ({
      name,
      token: { env: `BB_T_${i}` },
      baseUrl: spec.baseUrl,
      flows: spec.flows,
    })),
  },
});
const logger = createLogger({ level: 'warn', destination: process.stderr });
const started = performance.now();
const deployment = await startDeployment(config, {
  logger,
  parts: defaultParts(),
  env: process.env,
  catalog: openSqliteBotsCatalog(spec.catalog),
});
const returned = (performance.now() - started) / 1000;
if (deployment.address) {
  for (;;) {
    const ready = await fetch(`${deployment.address}/readyz`).catch(() => undefined);
    if (ready?.status === 200) break;
    await sleep(100);
  }
}
const startup = (performance.now() - started) / 1000;
const statuses: Record<string, number> = {};
const reasons = new Set<string>();
for (const bot of deployment.bots()) {
  statuses[bot.status] = (statuses[bot.status] ?? 0) + 1;
  if (bot.reason) reasons.add(bot.reason);
}
const rssAtReady = process.memoryUsage().rss;
await sleep(spec.settleMs);
gc?.();
await sleep(200);
gc?.();
say({
  event: 'ready',
  startup_s: startup,
  returned_s: returned,
  statuses,
  reasons: [...reasons].slice(0, 3),
  rss_at_ready: rssAtReady,
  rss: process.memoryUsage().rss,
  heap: process.memoryUsage().heapUsed,
});

for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'stats') {
    const cpu = process.cpuUsage();
    say({ event: 'stats', rss: process.memoryUsage().rss, cpu_us: cpu.user + cpu.system });
  } else if (line === 'stop') {
    await deployment.stop();
    say({ event: 'stopped' });
    process.exit(0);
  }
}
