// `npm run bench -- client`: throughput and per-call overhead of BotApi (undici keep-alive, JSON,
// limit checks, zod decoding) against a local http.Server that answers a recorded sendMessage result.
// Prints figures for people, then ONE JSON line.

import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BotApi } from '../../src/client/client.ts';

const recorded = JSON.parse(
  readFileSync(new URL('../client/fixtures/payloads/update.message_created.json', import.meta.url), 'utf8'),
) as { updates: Array<{ message: unknown }> };
const answer = JSON.stringify({ message: recorded.updates[0]!.message });

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(answer);
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const api = new BotApi({ token: 'bench-token', baseUrl, connections: 8 });

const keyboard = {
  type: 'inline_keyboard' as const,
  payload: {
    buttons: Array.from({ length: 5 }, (_, r) =>
      Array.from({ length: 3 }, (_, c) => ({
        type: 'callback' as const,
        text: `B${r}${c}`,
        payload: `p:${r}:${c}`,
      })),
    ),
  },
};

async function run(
  total: number,
  concurrency: number,
): Promise<{ perSecond: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const t = performance.now();
        await api.sendMessage({ chat_id: -1, text: 'Pick one', attachments: [keyboard] });
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { perSecond: Math.round(total / seconds), p50: +at(0.5).toFixed(3), p99: +at(0.99).toFixed(3) };
}

await run(500, 8); // warm-up
const serial = await run(2000, 1);
const parallel = await run(10000, 8);
console.log(`sendMessage with a 15-button keyboard, local server, recorded answer decoded by zod:`);
console.log(`  1 at a time: ${serial.perSecond} calls/s, p50 ${serial.p50} ms, p99 ${serial.p99} ms`);
console.log(`  8 in flight: ${parallel.perSecond} calls/s, p50 ${parallel.p50} ms, p99 ${parallel.p99} ms`);
console.log('  (the platform allows 30 calls/s per bot: the client is not the bottleneck)');
console.log(JSON.stringify({ bench: 'client', serial, parallel }));
await api.close();
server.close();
