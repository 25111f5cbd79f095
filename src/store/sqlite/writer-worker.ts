/**
 * The writer thread's side (see writer-thread.ts): its own connection to the database, on which it
 * applies the engine's planned batches and intake's inbox appends, one message at a time, in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../database.ts';
import { type InboxEntry, InboxStore } from '../inbox.ts';
import { BatchApplier, type PlannedWrites } from './apply.ts';
import type { WriterReply, WriterRequest, WriterThreadOptions } from './writer-thread.ts';

const options = workerData.options as WriterThreadOptions;
const db = openDatabase({
  path: options.path,
  ...(options.synchronous ? { synchronous: options.synchronous } : {}),
  ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
});
// The time of the request being handled: each request brings its caller's clock (the thread reads none).
let now = 0;
const applier = new BatchApplier(db, () => now);
const inbox = new InboxStore(db, () => now);
const port = parentPort!;

function handle(request: WriterRequest): unknown {
  switch (request.kind) {
    case 'apply':
      now = request.now;
      return applier.apply(request.batch as PlannedWrites[]);
    case 'append':
      now = request.now;
      return inbox.append(request.entries as InboxEntry[]);
  }
}

port.on('message', (request: WriterRequest | { kind: 'close' }) => {
  if (request.kind === 'close') {
    db.close();
    port.close();
    return;
  }
  let reply: WriterReply;
  try {
    reply = { id: request.id, ok: true, value: handle(request) };
  } catch (error) {
    const e = error as { message?: unknown; code?: unknown; name?: unknown };
    reply = {
      id: request.id,
      ok: false,
      error: {
        name: String(e?.name ?? 'Error'),
        message: String(e?.message ?? error),
        ...(typeof e?.code === 'string' ? { code: e.code } : {}),
      },
    };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true });
