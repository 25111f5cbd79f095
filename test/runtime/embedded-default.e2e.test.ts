/**
 * `npm start` with no configuration: the sandbox, the engine with the example flows and the web chat in one
 * process, reachable at the address it prints.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxControl } from '../../src/sandbox/index.ts';
import { openDatabase } from '../../src/store/database.ts';
import { EngineInbox } from '../../src/store/engine-inbox.ts';
import { InboxStore } from '../../src/store/inbox.ts';
import { eventually } from '../support/eventually.ts';
import { runBotflow } from './child.ts';

const FLOWS = fileURLToPath(new URL('../../flows', import.meta.url));
/** The example flows the repository ships (each file one flow). */
const EXAMPLES = readdirSync(FLOWS).filter((f) => f.endsWith('.flow.yaml')).length;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-embedded-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('botflow run without a token', () => {
  it('serves the web chat at the printed address and the example flows answer there', async () => {
    const run = runBotflow(['run', '--port', '0'], { cwd: dir, env: { BOTFLOW_FLOWS_DIR: FLOWS } });
    try {
      const [, address] = await run.waitFor(
        new RegExp(`open (http://127\\.0\\.0\\.1:\\d+/) to chat with your flows \\(${EXAMPLES} loaded`),
      );
      const page = await fetch(address!);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);

      const control = new SandboxControl(address!.replace(/\/$/, ''));
      try {
        const person = await control.createUser({ first_name: 'Ada' });
        await control.startBot(person.user_id);
        const texts = await eventually("the bot's first reply", async () => {
          const bot = (await control.view(person.user_id)).messages.filter((m) => m.from === 'bot');
          return bot.length > 0 && bot.map((m) => m.text);
        });
        expect(texts[0]).toContain('What is your');
      } finally {
        await control.close();
      }
      expect(existsSync(join(dir, '.botflow', 'sandbox.db'))).toBe(true);
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toBe(0);
  });

  it("prints the sandbox's own dev token on loopback (and /_sandbox/info shows it), never in the log", async () => {
    const run = runBotflow(['run', '--port', '0'], { cwd: dir, env: { BOTFLOW_FLOWS_DIR: FLOWS } });
    try {
      const [, address] = await run.waitFor(/open (http:\/\/127\.0\.0\.1:\d+)\//);
      const [, token] = await run.waitFor(/sandbox bot token \(local, new at each start; [^)]*\): (\S+)/);
      expect(token).toMatch(/^sandbox-token-/);
      const info = (await (await fetch(`${address}/_sandbox/info`)).json()) as { token?: string };
      expect(info.token).toBe(token);
      expect((await fetch(`${address}/me`, { headers: { authorization: token! } })).status).toBe(200);
      await run.waitFor(/"msg":"botflow is running"/);
      expect(run.stdout()).not.toContain(token); // the JSON log lines
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toBe(0);

    // Listening beyond this machine (a container's 0.0.0.0): no token, printed or served.
    const open = runBotflow(['run', '--port', '0', '--host', '0.0.0.0'], {
      cwd: dir,
      env: { BOTFLOW_FLOWS_DIR: FLOWS },
    });
    try {
      const [, port] = await open.waitFor(/open http:\/\/0\.0\.0\.0:(\d+)\//);
      const info = (await (await fetch(`http://127.0.0.1:${port}/_sandbox/info`)).json()) as object;
      expect(info).toHaveProperty('bot');
      expect(info).not.toHaveProperty('token');
      expect(open.stderr()).not.toContain('sandbox bot token');
      expect(open.stderr()).not.toContain('sandbox-token-');
    } finally {
      open.child.kill('SIGINT');
    }
    expect(await open.exited).toBe(0);
  });

  it('prunes settled inbox rows past their retention at start, and keeps pending ones', async () => {
    const home = mkdtempSync(join(dir, 'prune-'));
    mkdirSync(join(home, '.botflow'));
    const path = join(home, '.botflow', 'sandbox.db');
    const fourDaysAgo = Date.now() - 4 * 24 * 3_600_000;
    const seed = openDatabase({ path });
    const inbox = new InboxStore(seed);
    const [old] = inbox.append([
      { dedupeKey: 'old-done', payload: '{"update_type":"x"}', receivedAt: fourDaysAgo },
    ]);
    new EngineInbox(seed).settle(old!.id!, 'done', null, null, fourDaysAgo);
    seed.close();

    const run = runBotflow(['run', '--port', '0'], { cwd: home, env: { BOTFLOW_FLOWS_DIR: FLOWS } });
    try {
      await run.waitFor(/to chat with your flows/);
      // The log line and the ready line go to different streams: either may arrive first.
      await run.waitFor(/"inbox":1,.*old rows pruned/, 10_000);
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toBe(0);
    const after = openDatabase({ path });
    try {
      expect(new InboxStore(after).findByDedupeKey('old-done')).toBeUndefined();
    } finally {
      after.close();
    }
  });

  it('says which setting to change when the port is taken (BOTFLOW_PORT)', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const run = runBotflow(['run'], {
        cwd: dir,
        env: { BOTFLOW_FLOWS_DIR: FLOWS, BOTFLOW_PORT: String(port) },
      });
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toContain(
        `botflow: the sandbox cannot listen on 127.0.0.1:${port}: the address is already in use: stop the other process, or choose another port with --port or BOTFLOW_PORT`,
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe('botflow run with flows.watch', () => {
  it('reloads a changed flow file: new conversations get the new text, a broken edit keeps the old one', async () => {
    const flows = join(dir, 'watched-flows');
    mkdirSync(flows);
    const flow = (text: string) =>
      `flow: hello\nstart: greet\ntriggers:\n  - bot_started: true\nsteps:\n  greet:\n    type: message\n    say: "${text}"\n    next: bye\n  bye:\n    type: end\n`;
    writeFileSync(join(flows, 'hello.flow.yaml'), flow('Hello, version one'));
    const run = runBotflow(['run', '--port', '0', '--flows', flows], { cwd: dir });
    try {
      const [, address] = await run.waitFor(/open (http:\/\/127\.0\.0\.1:\d+)\//);
      const control = new SandboxControl(address!);
      const greetingFor = async (name: string) => {
        const person = await control.createUser({ first_name: name });
        await control.startBot(person.user_id);
        return await eventually(
          `the greeting to ${name}`,
          async () => (await control.view(person.user_id)).messages.find((m) => m.from === 'bot')?.text,
        );
      };
      try {
        expect(await greetingFor('Ann')).toBe('Hello, version one');
        writeFileSync(join(flows, 'hello.flow.yaml'), flow('Hello, version two'));
        await run.waitFor(/"msg":"flows reloaded: new sessions start on the new version"/);
        expect(await greetingFor('Bob')).toBe('Hello, version two');
        writeFileSync(join(flows, 'hello.flow.yaml'), 'flow: hello\nstart: nowhere\nsteps: {}\n');
        await run.waitFor(/flows changed but have problems: keeping the previous version/);
        expect(await greetingFor('Cid')).toBe('Hello, version two');
      } finally {
        await control.close();
      }
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
  });
});
