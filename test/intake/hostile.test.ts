/** Hostile bodies the fuzzer found, each pinned down: refused before parsing, or stored and ignored with a reason. */
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.ts';
import { buildWebhook } from '../../src/intake/webhook.ts';
import { loadFlowsOrThrow } from '../../src/testing/flows.ts';
import { tempDatabase, webhookPayload } from './helpers.ts';

const SECRET = 'hostile_secret';
let database: ReturnType<typeof tempDatabase> | undefined;
afterEach(() => database?.cleanup());

async function deliver(bodies: string[]) {
  database = tempDatabase();
  const app = buildWebhook({ db: database.db, secret: SECRET });
  const statuses: Array<{ status: number; body: string }> = [];
  for (const payload of bodies) {
    const answer = await app.inject({
      method: 'POST',
      url: '/webhook',
      headers: { 'content-type': 'application/json', 'x-svc-bot-api-secret': SECRET },
      payload,
    });
    statuses.push({ status: answer.statusCode, body: answer.body });
  }
  await app.close();
  const engine = createEngine({
    db: database.db,
    flows: await loadFlowsOrThrow('flows'),
    secret: 'hostile-button-secret-of-enough-length',
  });
  engine.processPending();
  await engine.stop({ waitMs: 0 });
  const rows = database.db
    .prepare('SELECT status, error, conversation_key AS key FROM inbox ORDER BY id')
    .all();
  return { statuses, rows: rows as Array<{ status: string; error: string | null; key: string | null }> };
}

const started = JSON.parse(webhookPayload('bot_started')) as { user: { user_id: number }; chat_id: number };

describe('hostile webhook bodies', () => {
  it('refuses JSON nested deeper than 64 levels with 400 before parsing it, and stores nothing', async () => {
    const deep = `{"update_type":"message_created","x":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    const { statuses, rows } = await deliver([deep]);
    expect(statuses[0]!.status).toBe(400);
    expect(JSON.parse(statuses[0]!.body)).toMatchObject({
      code: 'proto.payload',
      message: expect.stringMatching(/nested 5001 levels deep/),
    });
    expect(rows).toEqual([]);
  });

  it('keeps two ids past 2^53 apart and ignores both, saying why', async () => {
    const body = (userId: string) =>
      JSON.stringify({ ...started, user: { ...started.user, user_id: 0 } }).replace(
        '"user_id":0',
        `"user_id":${userId}`,
      );
    const { statuses, rows } = await deliver([body('9007199254740993'), body('9007199254740992')]);
    expect(statuses.map((s) => s.status)).toEqual([200, 200]);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.status).toBe('ignored');
      expect(row.key).toBeNull();
      expect(row.error).toMatch(/user\.user_id 900719925474099\d is beyond 2\^53 - 1/);
    }
  });

  it('ignores an update whose chat id is not an integer, with the field named, and no database error', async () => {
    const body = JSON.stringify({ ...started, chat_id: 1.5 });
    const { statuses, rows } = await deliver([body]);
    expect(statuses[0]!.status).toBe(200);
    expect(rows).toEqual([
      {
        status: 'ignored',
        key: null,
        error: 'chat_id 1.5 is not an integer: the platform sends integer ids and times',
      },
    ]);
  });

  it("ignores an update of a known type without its required fields, with the decoder's reason", async () => {
    const { chat_id: _dropped, ...withoutChat } = started;
    const { rows } = await deliver([JSON.stringify(withoutChat)]);
    expect(rows[0]).toMatchObject({
      status: 'ignored',
      error: expect.stringMatching(/^not an update the platform sends: update bot_started: field chat_id/),
    });
  });
});
