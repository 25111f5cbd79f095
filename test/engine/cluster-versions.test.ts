// A rolling deploy on PostgreSQL: a conversation started on flow version 1 in one process goes on on version
// 1 in a process that loaded only version 2 (rebuilt from the source stored in the shared database), while
// new conversations start on version 2. Real server, the sandbox over HTTP.
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { rebuildFlow } from '../../src/flows/rebuild.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { useClusterHarness } from '../support/cluster-harness.ts';
import { eventually } from '../support/eventually.ts';
import { postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();

const flowFile = (version: number, question: string) => `flow: signup
version: ${version}
start: ask_name
triggers: [{ bot_started: true }]
steps:
  ask_name:
    type: input
    say: "${question}"
    input: text
    retries: { max: 3, exhausted: { goto: done } }
    save: name
    next: done
  done:
    type: end
    say: "v${version}: welcome {{name}}"
`;

describe.skipIf(!up)('a rolling deploy on PostgreSQL', () => {
  const cluster = useClusterHarness();

  function startProcess(name: string, source: string) {
    const compiled = compileSources([{ file: 'signup.flow.yaml', source }], EMPTY_REGISTRY, new Map());
    expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
    return cluster.start(name, {
      flows: compiled.flows,
      rebuildFlow: (stored) => rebuildFlow(stored, { registry: EMPTY_REGISTRY }),
    });
  }

  const hears = (userId: number, texts: string[]) =>
    eventually(
      `person ${userId} to have heard ${JSON.stringify(texts)}`,
      async () => {
        expect(await cluster.botTexts(userId)).toEqual(texts);
        return true;
      },
      { timeoutMs: 20_000, tolerateThrows: true },
    );

  it('goes on with a conversation on the version it started on, in a process that loaded only the next', async () => {
    const old = await startProcess('v1', flowFile(1, 'What is your name?'));
    const ann = await cluster.sandbox.control.createUser({ first_name: 'Ann' });
    await cluster.sandbox.control.startBot(ann.user_id);
    await hears(ann.user_id, ['What is your name?']);

    await startProcess('v2', flowFile(2, 'Your name, please?'));
    await cluster.stop(old);
    await cluster.sandbox.control.sendMessage(ann.user_id, 'dialog', { text: 'Ann' });
    await hears(ann.user_id, ['What is your name?', 'v1: welcome Ann']);

    const bob = await cluster.sandbox.control.createUser({ first_name: 'Bob' });
    await cluster.sandbox.control.startBot(bob.user_id);
    await cluster.sandbox.control.sendMessage(bob.user_id, 'dialog', { text: 'Bob' });
    await hears(bob.user_id, ['Your name, please?', 'v2: welcome Bob']);
  });
});
