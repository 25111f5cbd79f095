/**
 * A changed flow file, through the real engine and the sandbox: running conversations stay on the
 * version they started on, and move to the new version when its `migrate:` block maps them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { Harness } from '../../src/testing/harness.ts';
import { lastBot as lastBotOf, personId } from '../support/people.ts';

const v1 = `flow: shop
version: 1
start: ask_email
triggers: [{ bot_started: true }]
steps:
  ask_email:
    type: input
    say: "Email?"
    input: email
    retries: { max: 2, exhausted: { goto: bye } }
    save: mail
    next: ask_size
  ask_size:
    type: input
    say: "Size for {{mail}}?"
    input: text
    retries: { max: 2, exhausted: { goto: bye } }
    save: size
    next: bye
  bye:
    type: end
    say: "v1: {{mail}} wears {{size}}"
`;

const v2 = `flow: shop
version: 2
start: ask_email
triggers: [{ bot_started: true }]
steps:
  ask_email:
    type: input
    say: "Your email?"
    input: email
    retries: { max: 2, exhausted: { goto: bye } }
    save: email
    next: ask_shoe_size
  ask_shoe_size:
    type: input
    say: "Shoe size for {{email}}?"
    input: number
    retries: { max: 2, exhausted: { goto: bye } }
    save: size
    next: bye
  bye:
    type: end
    say: "v2: {{email}} wears {{size}}"
`;

const migration = `migrate:
  - from: [1]
    steps: { ask_size: ask_shoe_size }
    context: { rename: { mail: email } }
`;

function compile(source: string): FlowDefinition {
  const r = compileSources(
    [{ file: 'shop.flow.yaml', source }],
    { validators: {}, guards: {}, effects: {} },
    new Map(),
  );
  expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return r.flows[0]!;
}

let bot: Harness | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

async function startOnV1() {
  bot = await Harness.start({ flows: [compile(v1)] });
  const ann = await personId(bot, 'Ann');
  await bot.sandbox.control.startBot(ann, {});
  await bot.settle();
  await bot.sandbox.control.sendText(ann, 'dialog', 'ann@example.org');
  await bot.settle();
  expect((await lastBotOf(bot, ann)).text).toBe('Size for ann@example.org?');
  return { bot, ann };
}

describe('a changed flow file and running conversations', () => {
  it('without migrate, a running conversation finishes on its version while new ones start on the new', async () => {
    const { bot, ann } = await startOnV1();
    await bot.restart([compile(v1), compile(v2)]);
    await bot.sandbox.control.sendText(ann, 'dialog', 'M');
    await bot.settle();
    expect((await lastBotOf(bot, ann)).text).toBe('v1: ann@example.org wears M');
    const bob = await personId(bot, 'Bob');
    await bot.sandbox.control.startBot(bob, {});
    await bot.settle();
    expect((await lastBotOf(bot, bob)).text).toBe('Your email?');
  });

  it('with migrate, the conversation moves to the mapped step with its context renamed', async () => {
    const { bot, ann } = await startOnV1();
    // Only the new version is loaded: the engine asks its migrate() to carry the session over.
    await bot.restart([compile(v2 + migration)]);
    await bot.sandbox.control.sendText(ann, 'dialog', 'M');
    await bot.settle();
    expect((await lastBotOf(bot, ann)).text).toBe('Please send a number, like 42.');
    await bot.sandbox.control.sendText(ann, 'dialog', '42');
    await bot.settle();
    expect((await lastBotOf(bot, ann)).text).toBe('v2: ann@example.org wears 42');
  });
});
