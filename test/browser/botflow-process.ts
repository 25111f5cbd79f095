/**
 * Runs `botflow run` (the embedded default: sandbox + engine + flows + web chat) as a child process in a
 * temporary folder, the way a person runs `npm start`, and finds the address it prints. The example flows
 * are copied there so a test may edit them (hot reload) without touching the repository.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { addDays, wallClock } from '../../src/engine/step/wall-clock.ts';
import { freshDatabase, postgresAvailable } from '../support/postgres.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** A running `botflow run`. */
export interface BotflowProcess {
  /** The page to open, as printed by the command. */
  webChatUrl: string;
  /** The temporary folder it runs in (its flows are in `<dir>/flows`). */
  dir: string;
  /** Everything it printed so far (for failure messages). */
  output(): string;
  /** Stops it (SIGTERM, then SIGKILL after 10 s) and removes the temporary folder. */
  stop(): Promise<void>;
}

/** Copies the example flows (files and catalogs) and points a registry at the repository's. */
function copyExampleFlows(dir: string): void {
  const flows = join(dir, 'flows');
  cpSync(join(REPO, 'flows', 'locales'), join(flows, 'locales'), { recursive: true });
  for (const name of readdirSync(join(REPO, 'flows'))) {
    if (name.endsWith('.flow.yaml')) cpSync(join(REPO, 'flows', name), join(flows, name));
  }
  const registry = pathToFileURL(join(REPO, 'flows', 'registry.ts')).href;
  writeFileSync(join(flows, 'registry.ts'), `export { default } from '${registry}';\n`);
  // Like the repository, the folder is ESM (tsx would otherwise load registry.ts as CommonJS).
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
}

/** Starts `botflow run --port 0` (with `env` added) and resolves once it prints the web chat's address. */
export async function startBotflow(
  timeoutMs = 60_000,
  env: Record<string, string> = {},
): Promise<BotflowProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-playground-'));
  copyExampleFlows(dir);
  const child: ChildProcess = spawn(
    process.execPath,
    [join(REPO, 'bin', 'botflow.js'), 'run', '--port', '0', '--log-level', 'info'],
    {
      cwd: dir,
      // No BOTFLOW_* setting from the caller's shell: the defaults are what is under test.
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('BOTFLOW_'))),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const address = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`botflow run printed no address within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /open (http:\/\/\S+?\/)\s/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`botflow run exited with code ${code} before printing an address:\n${output}`));
    });
  });
  let webChatUrl: string;
  try {
    webChatUrl = await address;
  } catch (error) {
    // Leave nothing behind when it never came up.
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    webChatUrl,
    dir,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The playground open in Debian's chromium, live; `pageErrors` collects the page's uncaught errors. */
export interface OpenPlayground {
  browser: Browser;
  page: Page;
  pageErrors: string[];
}

/** Opens `botflow`'s playground at 1440×900 and waits until its event stream is live. */
export async function openPlayground(botflow: BotflowProcess, timeoutMs = 30_000): Promise<OpenPlayground> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.setDefaultTimeout(timeoutMs);
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(botflow.webChatUrl);
  await page.getByRole('status', { name: 'Connection' }).getByText('live').waitFor();
  return { browser, page, pageErrors };
}

/**
 * `botflow run` and the playground open in chromium for the tests of one file: started before them,
 * stopped after. Read `page` (and the rest) inside the tests.
 */
export function usePlayground(
  timeoutMs = 30_000,
  env?: () => Promise<Record<string, string>>,
): OpenPlayground & { botflow: BotflowProcess } {
  const state = {} as OpenPlayground & { botflow: BotflowProcess };
  beforeAll(async () => {
    state.botflow = await startBotflow(60_000, (await env?.()) ?? {});
    Object.assign(state, await openPlayground(state.botflow, timeoutMs));
  });
  // A failed test shows what the process logged (info level): why a message never came, not only that.
  afterEach((context) => {
    if (context.task.result?.state !== 'fail' || !state.botflow) return;
    const lines = state.botflow.output().trimEnd().split('\n');
    console.error(
      `botflow run's last ${Math.min(lines.length, 150)} lines:\n${lines.slice(-150).join('\n')}`,
    );
  });
  afterAll(async () => {
    await state.browser?.close();
    await state.botflow?.stop();
  });
  return state;
}

/** The databases a playground test runs on: SQLite, and PostgreSQL when a server answers. */
export async function playgroundDatabases(): Promise<('sqlite' | 'postgres')[]> {
  return (await postgresAvailable()) ? ['sqlite', 'postgres'] : ['sqlite'];
}

/**
 * `usePlayground` on `kind`: on PostgreSQL, `botflow run` gets a fresh database (BOTFLOW_DATABASE_URL),
 * dropped after the tests.
 */
export function usePlaygroundOn(
  kind: 'sqlite' | 'postgres',
  timeoutMs = 30_000,
): OpenPlayground & { botflow: BotflowProcess; databaseUrl?: string } {
  if (kind === 'sqlite') return usePlayground(timeoutMs);
  let db: { url: string; drop(): Promise<void> } | undefined;
  const state: OpenPlayground & { botflow: BotflowProcess; databaseUrl?: string } = usePlayground(
    timeoutMs,
    async () => {
      db = await freshDatabase();
      state.databaseUrl = db.url;
      return { BOTFLOW_DATABASE_URL: db.url };
    },
  );
  afterAll(async () => {
    await state.browser?.close();
    await state.botflow?.stop();
    await db?.drop();
  });
  return state;
}

/** Adds a person, presses Start, and gives a way to type into their chat. */
export async function personChat(page: Page, name: string, timeoutMs = 30_000) {
  await page.getByLabel("New person's name").fill(name);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  const chat = page.getByRole('article', { name: `Chat of ${name}` });
  await chat.getByRole('button', { name: 'Start' }).click();
  const say = async (text: string) => {
    await chat.getByRole('textbox', { name: 'Message' }).fill(text);
    await chat.getByRole('textbox', { name: 'Message' }).press('Enter');
  };
  // Start begins the example sign-up.
  await chat.locator('.msg-bot', { hasText: 'What is your' }).waitFor({ timeout: timeoutMs });
  return { chat, say };
}

/** A person who left the sign-up and asked for a booking: the booking flow's first question is shown. */
/**
 * The booking example's day `+Nd` for the first N ≥ `min` on which its restaurant is open (flows/code/
 * booking.ts: closed on Mondays), counted from today in the flow's zone (Europe/Berlin) as the flow counts
 * it: a fixed `+3d` fails whenever three days on is a Monday there (late on a Thursday, UTC).
 */
export function openDay(min: number): string {
  const today = wallClock(Date.now(), 'Europe/Berlin');
  let n = min;
  while (new Date(`${addDays(today, n)}T00:00:00Z`).getUTCDay() === 1) n++;
  return `+${n}d`;
}

export async function bookingChat(page: Page, name: string, timeoutMs = 30_000) {
  const { chat, say } = await personChat(page, name, timeoutMs);
  await say('/cancel');
  await chat.locator('.msg-bot').nth(1).waitFor({ timeout: timeoutMs });
  await say('/book');
  await chat.locator('.msg-bot', { hasText: 'Which day?' }).waitFor({ timeout: timeoutMs });
  return { chat, say };
}

/**
 * Takes a screenshot of a part of the playground, again when the part was redrawn mid-shot: the side
 * panel replaces its sections as the conversation's events arrive ("element is not attached to the DOM").
 */
export async function shotOf(part: Locator, path: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await part.screenshot({ path, timeout: 2_000 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}
