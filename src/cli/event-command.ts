/**
 * `botflow event send`: an external event from the command line. By default it is written straight into
 * the configured database's inbox (SQLite or PostgreSQL), so it works while the bot is down: the bot takes
 * it at its next look. With `--url`, it is posted to a running bot's `POST /events` instead.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { eventCheck } from '../engine/events.ts';
import { loadFlows, readFlowSources } from '../flows/load.ts';
import {
  type EventAddress,
  EventInvalidError,
  type EventReceipt,
  eventEntry,
  type OutsideEvent,
} from '../inbox/event-entry.ts';
import { type Config, ConfigError } from '../runtime/config.ts';
import { loadBotConfig } from '../runtime/config-select.ts';
import { type OpenStore, openStore } from '../store/open.ts';
import { databaseSource } from '../store/reader.ts';
import { type Command, databaseArgv } from './command.ts';

const HELP = `usage: botflow event send <name> --to <address> [--payload '<json>' | --payload-file <file>] [--key <key>]
                          [--url <http://host:port/events> [--events-key <key>]]
       <address>: user:42 (a person's dialog) | chat:-7 (a chat) | chat:-7:user:42 (a person in a chat)
                  | conv:u:42 (a conversation key as botflow writes it)
options: --db <file> | --database-url <postgres://…> (default: database.path or database.url of the
configuration), --config <file>

Sends an external event (an order shipped, a payment confirmed) to a conversation, as POST /events and
bot.events.send do (docs/events.md). --key is the idempotency key: an event with the same name and key
is stored once, so sending again after a failure is safe. Without --url the event is written into the
database's inbox: it works while the bot is down, and a running bot takes it within a second. With --url
it is posted to a running bot, authenticated with --events-key or BOTFLOW_EVENTS_KEY (one of events.keys).

exit codes: 0 stored (or a duplicate of one stored before), 1 not stored (database or bot unreachable,
key refused), 2 the command or the event is wrong (the problems are printed).`;

const OPTIONS = {
  bot: { type: 'string' as const },
  to: { type: 'string' },
  payload: { type: 'string' },
  'payload-file': { type: 'string' },
  key: { type: 'string' },
  url: { type: 'string' },
  'events-key': { type: 'string' },
  db: { type: 'string' },
  'database-url': { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A usage problem: printed with the help, exit 2. (Plain: turned into the exit code here.) */
const usage = (message: string) => Object.assign(new Error(message), { usage: true });

/** `user:42`, `chat:-7`, `chat:-7:user:42`, `conv:u:42` as an address. */
export function parseAddress(text: string): EventAddress {
  const id = String.raw`(-?\d{1,16})`;
  let m = new RegExp(`^user:${id}$`).exec(text);
  if (m) return { userId: Number(m[1]) };
  m = new RegExp(`^chat:${id}(?::user:${id})?$`).exec(text);
  if (m)
    return m[2] === undefined ? { chatId: Number(m[1]) } : { chatId: Number(m[1]), userId: Number(m[2]) };
  m = /^conv:(.+)$/.exec(text);
  if (m) return { conversation: m[1]! };
  throw usage(`--to ${JSON.stringify(text)}: give user:42, chat:-7, chat:-7:user:42 or conv:u:42`);
}

function readPayload(values: { payload?: string; 'payload-file'?: string }): unknown {
  if (values.payload !== undefined && values['payload-file'] !== undefined)
    throw usage('give --payload or --payload-file, not both');
  let text = values.payload;
  if (values['payload-file'] !== undefined) {
    try {
      text = readFileSync(values['payload-file'], 'utf8');
    } catch (error) {
      throw usage(
        `--payload-file ${values['payload-file']}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
      );
    }
  }
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw usage(`the payload is not JSON (${(error as Error).message}): e.g. --payload '{"carrier": "DHL"}'`);
  }
}

/** The `event` subcommand. */
export const command: Command = {
  summary: 'send an external event to a conversation: into the database, or to a running bot (--url)',
  options: Object.keys(OPTIONS),
  async run(args) {
    let event: OutsideEvent;
    let values: ReturnType<typeof parse>['values'];
    try {
      const parsed = parse(args);
      values = parsed.values;
      if (values.help) {
        console.log(HELP);
        return 0;
      }
      const [action, name, ...extra] = parsed.positionals;
      if (action !== 'send') throw usage(action ? `unknown action "${action}": say send` : 'say send');
      if (!name) throw usage('name the event: botflow event send order_shipped --to user:42');
      if (extra.length > 0) throw usage(`unexpected ${JSON.stringify(extra[0])}: quote the payload's JSON`);
      if (!values.to) throw usage('say who the event is for: --to user:42');
      const payload = readPayload(values);
      event = {
        name,
        to: parseAddress(values.to),
        ...(payload !== undefined ? { payload } : {}),
        ...(values.key !== undefined ? { key: values.key } : {}),
      };
    } catch (error) {
      if (
        !(error as { usage?: boolean }).usage &&
        !(error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
      )
        throw error;
      console.error(`botflow event: ${(error as Error).message}\n\n${HELP}`);
      return 2;
    }
    if (values.url !== undefined) return postEvent(values.url, values['events-key'], event);
    return storeEvent(values, event);
  },
};

function parse(args: string[]) {
  return parseArgs({ args, strict: true, allowPositionals: true, options: OPTIONS });
}

function printReceipt(event: OutsideEvent, receipt: EventReceipt): number {
  console.log(
    receipt.accepted
      ? `event ${event.name} stored for ${receipt.conversation} (inbox row ${receipt.id})`
      : `event ${event.name} with key ${event.key} was stored before for ${receipt.conversation}: nothing new stored`,
  );
  return 0;
}

function printProblems(problems: readonly string[]): number {
  console.error(`botflow event: the event was refused:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return 2;
}

async function storeEvent(
  values: Parameters<typeof databaseArgv>[0] & { bot?: string },
  event: OutsideEvent,
): Promise<number> {
  let config: Config;
  try {
    config = loadBotConfig({ argv: databaseArgv(values) }, values.bot, 'botflow event');
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`botflow event: ${error.message}`);
    return 2;
  }
  let entry: ReturnType<typeof eventEntry>;
  try {
    entry = eventEntry(event, config.conversationKey);
  } catch (error) {
    if (error instanceof EventInvalidError) return printProblems(error.problems);
    throw error;
  }
  // The running bot's rule (engine.events.check): a name no flow knows, or a payload its schema refuses,
  // is refused here too rather than stored and ignored later.
  if (readFlowSources(config.flows.dir).length > 0) {
    const { flows } = await loadFlows(config.flows.dir);
    const problems = eventCheck(flows, event.name, event.payload ?? {});
    if (problems.length > 0) return printProblems(problems);
  }
  let opened: OpenStore;
  try {
    opened = await openStore(databaseSource(config.database));
  } catch (error) {
    console.error(`botflow event: ${(error as Error).message}`);
    return 1;
  }
  try {
    const [result] = await opened.appendInbox([entry]);
    return printReceipt(event, {
      accepted: result!.inserted,
      id: result!.id,
      conversation: entry.conversationKey as string,
    });
  } catch (error) {
    console.error(`botflow event: could not store the event in ${opened.where}: ${(error as Error).message}`);
    return 1;
  } finally {
    await opened.close();
  }
}

async function postEvent(url: string, given: string | undefined, event: OutsideEvent): Promise<number> {
  const key = given ?? process.env.BOTFLOW_EVENTS_KEY;
  if (!key) {
    console.error(
      'botflow event: --url needs a key: --events-key <key> or BOTFLOW_EVENTS_KEY (one of events.keys)',
    );
    return 2;
  }
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(event),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    console.error(
      `botflow event: no answer from ${url} (${cause}): is the bot running with events configured?`,
    );
    return 1;
  }
  const text = await res.text();
  let body: { error?: { code?: string; message?: string; problems?: string[] } } & Partial<EventReceipt>;
  try {
    body = JSON.parse(text);
  } catch {
    console.error(`botflow event: ${url} answered ${res.status} without JSON: is it the events endpoint?`);
    return 1;
  }
  if (res.ok) return printReceipt(event, body as EventReceipt);
  if (body.error?.problems) return printProblems(body.error.problems);
  console.error(
    `botflow event: ${url} answered ${res.status} ${body.error?.code ?? ''}: ${body.error?.message ?? text}`,
  );
  return res.status === 400 || res.status === 413 ? 2 : 1;
}
