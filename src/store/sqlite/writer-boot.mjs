// Starts a worker thread's TypeScript entry: registers tsx's loader first when the entry is a .ts file
// (workers do not inherit the main thread's loader), then imports it.
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
