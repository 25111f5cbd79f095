/**
 * What people type that nothing took (issue 30), over SQLite and PostgreSQL: an intent step's `unknown` and
 * `unclear`, a menu's text that names no button, a choice step's text that picks no option are counted at
 * the step with the text as a sample (its first 200 characters), read back by the funnel (the latest 5
 * distinct, newest first); an accepted answer, a pressed button or a known intent are not. With
 * `funnelSamples: false` (config `funnel.samples`) only the counts are written.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { planEffects } from '../../src/engine/step/effects.ts';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { funnelOf } from '../../src/runtime/funnel.ts';
import { describeFunnel } from '../../src/runtime/funnel-text.ts';
import { type Conformance, openConformance, type StoreKind } from '../support/engine-conformance.ts';
import { postgresAvailable } from '../support/postgres.ts';
import { botStarted, textMessage } from './fixtures.ts';

const up = await postgresAvailable();
const kinds = (['sqlite', 'postgres'] as StoreKind[]).filter((k) => k === 'sqlite' || up);

const CAFE = `flow: cafe
start: hello
triggers: [{ bot_started: true }]
intents:
  book: [table, book]
  menu_words: { en: ["what do you have", "the menu"] }
steps:
  hello:
    type: menu
    say: How can I help?
    keyboard: [[{ id: menu, text: Menu, goto: size }]]
    understand:
      intents:
        book: { goto: size }
        menu_words: { goto: size }
      unclear: { say: "Did you mean a table?" }
      unknown: { say: "Sorry, I did not get that." }
  size:
    type: input
    say: Which size?
    input: choice
    options: [{ id: s, text: Small }, { id: l, text: Large }]
    retries: { max: 9, exhausted: { goto: done } }
    save: size
    next: done
  done: { type: end, say: "Thanks." }
`;

function flows(): FlowDefinition[] {
  const { flows, problems } = compileSources(
    [{ file: 'cafe.flow.yaml', source: CAFE }],
    EMPTY_REGISTRY,
    new Map(),
  );
  expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
  return flows;
}

let h: Conformance | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function open(kind: StoreKind, setup: { funnelSamples?: boolean } = {}): Promise<Conformance> {
  h = await openConformance(kind, flows, setup);
  return h;
}

async function say(c: Conformance, userId: number, ...texts: string[]): Promise<void> {
  for (const text of texts) {
    c.clock.advance(1000);
    await c.deliver(textMessage(userId, c.clock.now(), text));
    await c.settle();
  }
}

describe('the input.unrecognised effect', () => {
  it('keeps the first 200 characters (not code units) of a text, and counts no empty one', () => {
    const text = `${'🙂'.repeat(199)}ab`;
    const planned = planEffects(
      [
        { kind: 'input.unrecognised', text },
        { kind: 'input.unrecognised', text: '  ' },
        { kind: 'input.unrecognised', text: 'hi' },
      ],
      'u:1',
      { meta: { conversation: 'u:1', now: 0 }, stepInstance: 1, sign: () => 'x' },
    );
    expect(planned.unrecognised).toEqual([`${'🙂'.repeat(199)}a`, 'hi']);
    expect(planned.calls).toEqual([]);
  });
});

describe.each(kinds)('unrecognised texts over %s', (kind) => {
  it('are counted at the step they were typed at, with the latest 5 distinct as samples', async () => {
    const c = await open(kind);
    await c.deliver(botStarted(1, c.clock.now()), botStarted(2, c.clock.now()));
    await c.settle();
    const long = `${'x'.repeat(250)}`;
    // Person 1 at the menu: nonsense (unknown), two intents at once (unclear), the same nonsense again…
    await say(c, 1, 'asdf', 'book the menu', 'ASDF ', long, 'pizza', 'coffee', 'wifi?');
    // Person 2 names the button, then types no option at the choice step, then picks one.
    await say(c, 2, 'menu', 'medium please', 'Large');
    const lines = await c.stepLog({ flowId: 'cafe' });
    const unrecognised = lines.filter((l) => l.event === 'unrecognised');
    expect(unrecognised.map((l) => [l.conversationKey, l.step, l.sample?.length])).toEqual([
      ['u:1', 'hello', 4],
      ['u:1', 'hello', 13], // both intents as well: unclear
      ['u:1', 'hello', 5],
      ['u:1', 'hello', 200], // the first 200 characters only
      ['u:1', 'hello', 5],
      ['u:1', 'hello', 6],
      ['u:1', 'hello', 5],
      ['u:2', 'size', 13],
    ]);
    expect(c.platform.seen(1001)).toContain('Did you mean a table?');
    const [cafe] = funnelOf(lines, flows());
    const hello = cafe!.steps.find((s) => s.step === 'hello')!;
    expect(hello.unrecognised).toBe(7);
    // Newest first; "ASDF " and "asdf" are one text, and the long one was pushed out by newer ones.
    expect(hello.samples).toEqual(['wifi?', 'coffee', 'pizza', 'x'.repeat(200), 'ASDF ']);
    const size = cafe!.steps.find((s) => s.step === 'size')!;
    expect(size).toMatchObject({ unrecognised: 1, samples: ['medium please'], retries: 1 });
    expect(cafe!.steps.find((s) => s.step === 'done')).toMatchObject({ unrecognised: 0, samples: [] });
    const text = describeFunnel([cafe!]);
    expect(text).toContain('unrecognised');
    expect(text).toMatch(/size .*\n\s+“medium please”/);
  });

  it('are only counted when funnel samples are off: no text is written', async () => {
    const c = await open(kind, { funnelSamples: false });
    await c.deliver(botStarted(1, c.clock.now()));
    await c.settle();
    await say(c, 1, 'my card number is 4111 1111', 'book a table');
    const rows = await c.rows<{ event: string; sample: string | null }>(
      "SELECT event, sample FROM step_log WHERE event = 'unrecognised' ORDER BY id",
    );
    expect(rows).toEqual([{ event: 'unrecognised', sample: null }]);
    const [cafe] = funnelOf(await c.stepLog({ flowId: 'cafe' }), flows());
    expect(cafe!.steps[0]).toMatchObject({ step: 'hello', unrecognised: 1, samples: [] });
  });
});
