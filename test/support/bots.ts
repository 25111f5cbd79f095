/** What the tests of many bots share: flows that greet, a free port, a logger that keeps its lines, a catalog in a file. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/runtime/logger.ts';
import type { Sandbox } from '../../src/sandbox/index.ts';
import { openSqliteBotsCatalog } from '../../src/store/bots-catalog.ts';
import type { BotsCatalog } from '../../src/store/ports/bots-catalog.ts';

/** A deployment's catalog in a SQLite file of a fresh folder (the adapter `botflow run` uses). */
export function tempBotsCatalog(): BotsCatalog {
  return openSqliteBotsCatalog(join(mkdtempSync(join(tmpdir(), 'botflow-catalog-')), 'bots.db'));
}

/** A flows folder whose one flow greets with `greeting` and asks a question reminded after `remind`. */
export function flowsSaying(dir: string, name: string, greeting: string, remind = '1h'): string {
  const flows = join(dir, `flows-${name}`);
  mkdirSync(flows, { recursive: true });
  writeFileSync(
    join(flows, 'hello.flow.yaml'),
    `flow: hello
start: ask
triggers:
  - bot_started: true
steps:
  ask:
    type: input
    say: "${greeting}"
    input: text
    save: answer
    retries: { max: 3, exhausted: { goto: done } }
    remind:
      - { after: ${remind}, say: "${name} is still waiting" }
    next: done
  done:
    type: end
`,
  );
  return flows;
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A logger whose lines are kept, to look for tokens in them. */
export function keptLogger(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', destination }), lines };
}

export async function greeted(sandbox: Sandbox, text: string): Promise<string[]> {
  const person = await sandbox.control.createUser({ first_name: 'Ann' });
  await sandbox.control.startBot(person.user_id);
  const view = await sandbox.control.waitForView(
    person.user_id,
    'dialog',
    (v) => v.messages.some((m) => m.from === 'bot' && m.text?.includes(text)),
    { timeoutMs: 15_000 },
  );
  return view.messages.filter((m) => m.from === 'bot').map((m) => m.text ?? '');
}
