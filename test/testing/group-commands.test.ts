/**
 * Commands in a group chat, over the sandbox: `/hello@bot` and `@bot /hello` route like `/hello`; the same
 * addressed to another bot is not this bot's to answer (it is ignored with the reason).
 */
import { expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { Harness } from '../../src/testing/harness.ts';

const FLOW = `flow: hello
start: hi
triggers: [{ command: hello }]
steps:
  hi: { type: end, say: "Hi, {{start_payload}}!" }
`;

it('routes commands addressed to this bot by suffix or mention, and ignores those for another bot', async () => {
  const r = compileSources([{ file: 'hello.flow.yaml', source: FLOW }], EMPTY_REGISTRY, new Map());
  const h = await Harness.start({ flows: r.flows });
  try {
    const ann = await h.person('Ann');
    const group = await h.sandbox.control.createChat({
      owner_id: ann.userId,
      title: 'Friends',
      with_bot: true,
      bot_permissions: ['read_all_messages', 'write'],
    });
    const bot = h.sandbox.bot.username;
    const said = async (text: string) => {
      const before = h.db.prepare("SELECT count(*) AS n FROM outbox WHERE op = 'sendMessage'").get() as {
        n: number;
      };
      await h.sandbox.control.sendText(ann.userId, group.chat_id, text);
      await h.settle();
      return (
        h.db.prepare("SELECT args FROM outbox WHERE op = 'sendMessage' ORDER BY id").all() as {
          args: string;
        }[]
      )
        .slice(before.n)
        .map((row) => (JSON.parse(row.args) as { text: string }).text);
    };
    expect(await said(`/hello@${bot}`)).toHaveLength(1);
    expect(await said(`@${bot} /hello`)).toHaveLength(1);
    expect(await said('/hello@someone_elses_bot')).toEqual([]);
    expect(await said('@someone_elses_bot /hello')).toEqual([]);
    const ignored = h.db
      .prepare("SELECT error FROM inbox WHERE status = 'ignored' ORDER BY id")
      .all()
      .map((row) => (row as { error: string }).error)
      .filter((e) => e.includes('command'));
    expect(ignored).toEqual([
      'a command addressed to another bot (@someone_elses_bot)',
      'a command addressed to another bot (@someone_elses_bot)',
    ]);
  } finally {
    await h.close();
  }
});
