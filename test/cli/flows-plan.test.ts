/**
 * `botflow flows plan` on a real SQLite file: conversations running on an older version of a flow, and a
 * changed flow file about to be deployed. Sessions on the deployed version stay; a migrate: block moves
 * the ones it maps, to its step; the rest stay pinned (their version's stored source still builds), or are
 * stranded when it no longer builds or the flow is gone; exit code 1 then.
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { command } from '../../src/cli/flows-command.ts';
import { placeSession } from '../../src/engine/jump.ts';
import { loadFlows } from '../../src/flows/load.ts';
import { openDatabase } from '../../src/store/database.ts';
import { FlowVersionStore } from '../../src/store/flow-versions.ts';
import { copyFromSqlite } from '../../src/store/postgres/copy-from-sqlite.ts';
import { openPostgres } from '../../src/store/postgres/database.ts';
import { sqliteSupport } from '../../src/store/sqlite/support.ts';
import { consoleOutput } from '../support/console-output.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const flowV = (version: number, extra = '') => `flow: order
version: ${version}
start: size
triggers: [{ bot_started: true }]
steps:
  size:
    type: input
    say: Which size?
    input: text
    retries: { max: 2, exhausted: { goto: done } }
    save: size
    next: ${version === 1 ? 'colour' : 'address'}
${
  version === 1
    ? `  colour:
    type: input
    say: Which colour?
    input: text
    retries: { max: 2, exhausted: { goto: done } }
    save: colour
    next: done
`
    : ''
}  address:
    type: input
    say: Where to?
    input: text
    retries: { max: 2, exhausted: { goto: done } }
    save: address
    next: done
  done: { type: end, say: Thanks. }
${extra}`;

const output = consoleOutput();
const run = (args: string[]) => output.run(command, args);

/** A bot folder whose database has conversations on version 1: two at size, three at colour. */
async function botWithOldConversations(storeSource = true) {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-plan-'));
  mkdirSync(join(dir, 'flows'));
  writeFileSync(join(dir, 'flows', 'order.flow.yaml'), flowV(1));
  const [v1] = (await loadFlows(join(dir, 'flows'))).flows;
  const db = openDatabase({ path: join(dir, 'bot.db') });
  new FlowVersionStore(db).record(v1!.id, v1!.version, 1, storeSource ? v1!.source : undefined);
  for (const [i, step] of ['size', 'size', 'colour', 'colour', 'colour'].entries())
    placeSession(sqliteSupport(db), { conversationKey: `u:${i}`, flow: v1!, step, vars: {}, chatId: i }, 1);
  db.close();
  return { dir, v1: v1! };
}

const pgUp = await postgresAvailable();

describe('botflow flows plan', () => {
  it('says what stays, what a migrate: block moves and where, and what would be stranded', async () => {
    const { dir, v1 } = await botWithOldConversations();
    const db = join(dir, 'bot.db');
    const flows = join(dir, 'flows');

    // Unchanged: everything is on the deployed version.
    expect(await run(['plan', flows, '--db', db])).toBe(0);
    expect(output.lines[0]).toBe(
      `order ${v1.version.slice(0, 10)}: 5 running: on the version being deployed, nothing changes`,
    );

    // Changed without a migrate: block: the old version's stored source still builds, so they stay on it.
    writeFileSync(join(flows, 'order.flow.yaml'), flowV(2));
    expect(await run(['plan', flows, '--db', db])).toBe(0);
    expect(output.lines[0]).toContain(
      '5 stay on the old version (rebuilt from the source stored with the old version)',
    );

    // A migrate: block moves the ones it maps: colour no longer exists, so `otherwise` takes them.
    writeFileSync(
      join(flows, 'order.flow.yaml'),
      flowV(2, 'migrate:\n  - from: [1]\n    steps: { size: size }\n    otherwise: address\n'),
    );
    expect(await run(['plan', flows, '--db', db])).toBe(0);
    expect(output.lines[0]).toContain('5 move by migrate: (3 to address, 2 to size)');
    expect(output.lines.at(-1)).toBe('no conversation would be stranded');

    // The flow is gone: its conversations stay on their old version while its stored source builds.
    writeFileSync(join(flows, 'order.flow.yaml'), flowV(2).replace('flow: order', 'flow: other'));
    renameSync(join(flows, 'order.flow.yaml'), join(flows, 'other.flow.yaml'));
    expect(await run(['plan', flows, '--db', db, '--json'])).toBe(0);
    expect(JSON.parse(output.lines.join('\n'))[0]).toMatchObject({
      outcome: 'pinned',
      pinned: 5,
      stranded: 0,
    });
  });

  it.skipIf(!pgUp)('reads a PostgreSQL database the same way (--database-url)', async () => {
    const { dir } = await botWithOldConversations();
    const flows = join(dir, 'flows');
    const target = await migratedDatabase();
    try {
      const pg = await openPostgres({ url: target.url });
      const sqlite = new SQLite(join(dir, 'bot.db'), { readonly: true });
      await copyFromSqlite(sqlite, pg.pool);
      sqlite.close();
      await pg.close();
      writeFileSync(
        join(flows, 'order.flow.yaml'),
        flowV(2, 'migrate:\n  - from: [1]\n    steps: { size: size }\n'),
      );
      // Size is mapped; colour is gone from version 2 and has no `otherwise`: those stay on version 1.
      expect(await run(['plan', flows, '--database-url', target.url])).toBe(0);
      expect(output.lines[0]).toContain(
        '2 move by migrate: (2 to size); 3 stay on the old version (rebuilt from the source stored with the old version)',
      );
      expect(output.lines.at(-1)).toBe('no conversation would be stranded');
    } finally {
      await target.drop();
    }
  });

  it('exits 1 when conversations would be stranded, saying why and what to do', async () => {
    const { dir } = await botWithOldConversations(false); // stored before sources were kept
    const flows = join(dir, 'flows');
    writeFileSync(join(flows, 'order.flow.yaml'), flowV(2));
    expect(await run(['plan', flows, '--db', join(dir, 'bot.db')])).toBe(1);
    expect(output.lines[0]).toContain(
      "5 STRANDED: no source of the old version is stored, and the new version's migrate: block does not map them",
    );
    expect(output.lines.at(-1)).toMatch(/^5 conversation\(s\) would be stranded: add a migrate: block/);
  });
});
