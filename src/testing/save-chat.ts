/**
 * The playground's "save as test": `POST /_inspector/transcript { user_id }` turns the person's chat
 * (since their last Start or jump) into a transcript test (from-chat.ts) and writes it to
 * `<flows dir>/tests/<flow>-<person>.test.yaml` (a number added when the name is taken), where
 * `botflow test` finds it. Answers `{ file, yaml }`. A playground extension: the CLI wires it in.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import type { Engine } from '../engine/engine.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import type { PlaygroundExtension } from '../runtime/app-parts.ts';

const slug = (text: string) =>
  text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'person';

/** Who the person is, from their updates: the name and locale their app reported. */
function personOf(history: readonly { payload: unknown }[]): { name: string; locale?: string } {
  for (const { payload } of [...history].reverse()) {
    const u = (payload ?? {}) as Record<string, Record<string, unknown> | undefined>;
    const user = (u.user ?? u.message?.sender ?? (u.callback as Record<string, unknown> | undefined)?.user) as
      | { first_name?: string }
      | undefined;
    if (user?.first_name) {
      const locale = (payload as { user_locale?: unknown }).user_locale;
      return { name: user.first_name, ...(typeof locale === 'string' ? { locale } : {}) };
    }
  }
  return { name: 'Ann' };
}

export function saveChatExtension(): PlaygroundExtension {
  let engine: Engine<boolean> | undefined;
  let flows: FlowDefinition[] = [];
  let dir = 'flows';
  const plugin: FastifyPluginAsync = async (app) => {
    app.post('/_inspector/transcript', async (req, reply) => {
      const userId = Number((req.body as { user_id?: unknown } | undefined)?.user_id);
      if (!Number.isSafeInteger(userId))
        return reply
          .code(400)
          .send({ code: 'proto.payload', message: 'POST /_inspector/transcript takes { user_id }' });
      if (!engine)
        return reply.code(409).send({ code: 'no.engine', message: 'No engine is attached: run botflow run' });
      const key = `u:${userId}`;
      const session = await engine.sessions.get(key);
      const history = await engine.sessions.history(key, { limit: 1000 });
      if (!session || history.length === 0)
        return reply
          .code(404)
          .send({ code: 'not.found', message: 'this person has no conversation to save yet' });
      // Loaded on first use: `botflow run` starts without the transcript harness.
      const { chatLogFrom, transcriptFromChat } = await import('./from-chat.ts');
      const person = personOf(history);
      const log = chatLogFrom(history, { flow: session.flowId, ...person });
      let yaml: string;
      try {
        yaml = await transcriptFromChat(log, flows, `${person.name}'s chat, saved from the playground`);
      } catch (error) {
        return reply.code(422).send({ code: 'transcript.failed', message: (error as Error).message });
      }
      const folder = join(dir, 'tests');
      mkdirSync(folder, { recursive: true });
      const base = `${log.flow}-${slug(person.name)}`;
      let file = join(folder, `${base}.test.yaml`);
      for (let n = 2; existsSync(file); n++) file = join(folder, `${base}-${n}.test.yaml`);
      writeFileSync(file, yaml);
      return { file: relative(process.cwd(), file), yaml };
    });
  };
  return {
    plugin,
    attach(attached, loaded, flowsDir) {
      engine = attached;
      flows = loaded.flows;
      dir = flowsDir;
    },
    flowsChanged(loaded) {
      if (loaded.problems.length === 0) flows = loaded.flows;
    },
  };
}
