/**
 * A flow that reads every group message (`group_messages: all`) running in a group where the bot lacks
 * `read_all_messages`: botflow run says so once per chat, with what to do; where the bot has the right,
 * nothing is said.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, expect, it } from 'vitest';
import { createBot } from '../../src/index.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import { eventually } from '../support/eventually.ts';

const dir = mkdtempSync(join(tmpdir(), 'botflow-group-rights-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('warns once per group chat where a group_messages: all flow cannot read every message', async () => {
  mkdirSync(join(dir, 'flows'));
  writeFileSync(
    join(dir, 'flows', 'quiz.flow.yaml'),
    `flow: quiz
group_messages: all
start: ask
triggers: [{ command: quiz }]
steps:
  ask:
    type: input
    say: "Capital of France?"
    input: text
    retries: { max: 3, exhausted: { goto: done } }
    save: answer
    next: done
  done: { type: end, say: Thanks. }
`,
  );
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'warn' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  );
  const sandbox = await startSandbox({ limits: false });
  const bot = await createBot({
    config: {
      token: sandbox.token,
      baseUrl: sandbox.baseUrl,
      mode: 'polling',
      polling: { timeoutSeconds: 1 },
      flows: { dir: join(dir, 'flows'), watch: false },
      database: { path: join(dir, 'bot.db') },
    },
    env: {},
    cwd: dir,
    logger,
  });
  try {
    const ann = await sandbox.control.createUser({ first_name: 'Ann' });
    const plain = await sandbox.control.createChat({ owner_id: ann.user_id, title: 'Plain', with_bot: true });
    const trusted = await sandbox.control.createChat({
      owner_id: ann.user_id,
      title: 'Trusted',
      with_bot: true,
      bot_permissions: ['read_all_messages', 'write'],
    });
    for (const chat of [plain, trusted]) await sandbox.control.sendText(ann.user_id, chat.chat_id, '/quiz');
    const warned = () => lines.filter((l) => String(l.msg).includes('group_messages: all'));
    await eventually('the warning', () => (warned().length > 0 ? true : undefined), 15_000);
    await sandbox.control.sendText(ann.user_id, plain.chat_id, '/quiz'); // the same chat again: said once
    // The warning comes while an update is handled, before the reply is sent: once the bot has answered
    // the second /quiz and the trusted chat's, any further warning would already be in the log.
    const answered = (chat: number, count: number) =>
      sandbox.control.waitForView(
        ann.user_id,
        chat,
        (v) => v.messages.filter((m) => m.from === 'bot').length >= count,
        { timeoutMs: 15_000 },
      );
    await answered(plain.chat_id, 2);
    await answered(trusted.chat_id, 1);
    expect(warned()).toHaveLength(1);
    expect(warned()[0]).toMatchObject({ chat: plain.chat_id, flow: 'quiz' });
    expect(String(warned()[0]!.msg)).toContain('read_all_messages');
  } finally {
    await bot.close();
    await sandbox.close();
  }
}, 40_000);
