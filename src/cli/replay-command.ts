/**
 * `botflow replay <recording.jsonl> [--flows dir]` and `botflow replay --db <file> | --database-url <url>
 * [--conversation key]`:
 * replays recorded conversations against the current flows and prints the calls that differ.
 * Exit code 0 when none differ, 1 when some do, 2 on bad input.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type Recording, readRecording } from '../runtime/recording.ts';
import { databaseSource } from '../store/reader.ts';
import { loadFlowsOrThrow } from '../testing/flows.ts';
import { recordingFromDatabase } from '../testing/recording-from-db.ts';
import { replay } from '../testing/replay.ts';
import { type Command, takeBotConfig } from './command.ts';

const USAGE = `usage: botflow replay <recording> [--flows dir]
       botflow replay --db <botflow.db> | --database-url <postgres://…> [--conversation <key>] [--flows dir]
       botflow replay --bot <name> [--config <file>] [--conversation <key>] [--flows dir]

Replays what real people did against the current flows, with the recorded timestamps driving a virtual
clock, and prints every API call that differs from what was recorded (- no longer made, + new).

  <recording>            a file written by botflow run --record <file>
  --db <file>            replay from the inbox and outbox of a botflow database instead
  --database-url <url>   the same from the PostgreSQL database of several instances (only read)
  --bot <name>           the same from the database of that bot of bots: (its file or schema), against its
                         flows folder (botflow.config.yaml; docs/bots.md)
  --conversation <key>   with --db, --database-url or --bot: only this conversation (e.g. u:123)
  --flows <dir>          the flows to replay against (default: flows)

exit code: 0 no differences, 1 differences, 2 bad input`;

/** Runs `botflow replay`. */
export async function runReplay(args: string[], print: (line: string) => void): Promise<number> {
  const bot = takeBotConfig(args, 'botflow replay');
  if (bot === null) return 2;
  let values: {
    flows?: string;
    db?: string;
    'database-url'?: string;
    conversation?: string;
    help?: boolean;
  };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        flows: { type: 'string' },
        db: { type: 'string' },
        'database-url': { type: 'string' },
        conversation: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    print(`botflow replay: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    print(USAGE);
    return 0;
  }
  const url = values['database-url'];
  const source = values.db ?? url ?? positionals[0];
  const given = [values.db, url, positionals[0]].filter((x) => x !== undefined).length;
  if (bot && given > 0) {
    print("botflow replay: --bot replays that bot's database: leave out --db, --database-url and a file");
    return 2;
  }
  if (!bot && (!source || given > 1 || positionals.length > 1)) {
    print(`botflow replay: give one recording file, or --db <file>, or --database-url <url>\n\n${USAGE}`);
    return 2;
  }
  if (!bot && url === undefined && !existsSync(source!)) {
    print(`botflow replay: ${source} does not exist`);
    return 2;
  }
  let recording: Recording;
  let flows: Awaited<ReturnType<typeof loadFlowsOrThrow>>;
  try {
    recording = bot
      ? await recordingFromDatabase(databaseSource(bot.database), values.conversation)
      : url !== undefined
        ? await recordingFromDatabase({ url }, values.conversation)
        : values.db
          ? await recordingFromDatabase({ path: source! }, values.conversation)
          : readRecording(source!);
    flows = await loadFlowsOrThrow(values.flows ?? bot?.flows.dir ?? 'flows');
  } catch (error) {
    print(`botflow replay: ${(error as Error).message}`);
    return 2;
  }
  return replayed(recording, flows, print);
}

/** Replays `recording` against `flows`; prints the differences and a summary. */
async function replayed(
  recording: Recording,
  flows: Awaited<ReturnType<typeof loadFlowsOrThrow>>,
  print: (line: string) => void,
): Promise<number> {
  for (const warning of recording.warnings ?? []) print(`warning: ${warning}`);
  const result = await replay(recording, { flows });
  for (const d of result.differences) print(`${d.text}\n`);
  const tasks =
    result.recordedTasks + result.replayedTasks > 0
      ? `; ${result.recordedTasks} task attempts recorded, ${result.replayedTasks} made now`
      : '';
  const summary = `${result.updates} updates replayed; ${result.recordedCalls} calls recorded, ${result.replayedCalls} made now${tasks}`;
  if (!result.differences.length) {
    print(`${summary}: no differences`);
    return 0;
  }
  print(`${summary}: ${result.differences.length} conversation(s) differ`);
  return 1;
}

/** The `replay` subcommand. */
export const command: Command = {
  options: ['flows', 'db', 'database-url', 'conversation', 'bot', 'config'],
  summary: 'replay a recording against the current flows; report the calls that differ',
  run: (args) => runReplay(args, (line) => console.log(line)),
};
