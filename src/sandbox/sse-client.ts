/** Reads a server-sent event stream (`/_sandbox/events`) with undici, for the control client. */
import type { Pool } from 'undici';
import type { FeedEvent } from './feed.ts';

/** Follows `path` and calls `onEvent` with each event's data; resolves once the stream is open. */
export async function followEvents(
  pool: Pool,
  path: string,
  onEvent: (event: FeedEvent & { id: number }) => void,
): Promise<{ close(): void }> {
  const abort = new AbortController();
  const res = await pool.request({ method: 'GET', path, signal: abort.signal });
  let buffer = '';
  res.body.setEncoding('utf8');
  res.body.on('data', (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      if (data) onEvent(JSON.parse(data));
      end = buffer.indexOf('\n\n');
    }
  });
  res.body.on('error', () => {});
  return { close: () => abort.abort() };
}
