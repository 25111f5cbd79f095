/**
 * External events in transcripts and replays: `- event: { order_shipped: { id: 7 } }` sends an event to the
 * person as `bot.events.send` does (checked, stored, handled in order); `--record` writes the events it
 * accepted and replay sends them again where they came, so a recorded dialog with events replays with no
 * differences, and a change to what the event does is reported.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine, type EngineApi } from '../../src/engine/engine.ts';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { createRecorder } from '../../src/runtime/recorder.ts';
import { readRecording } from '../../src/runtime/recording.ts';
import { openDatabase } from '../../src/store/database.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { recordingFromDatabase } from '../../src/testing/recording-from-db.ts';
import { replay } from '../../src/testing/replay.ts';
import { runTranscript } from '../../src/testing/run.ts';
import { EVENT_REGISTRY, SHOP, TABLE } from '../engine/conformance-event-flows.ts';
import { botStarted, textMessage } from '../engine/fixtures.ts';

function compiled(shop = SHOP): FlowDefinition[] {
  const r = compileSources(
    [
      { file: 'shop.flow.yaml', source: shop },
      { file: 'table.flow.yaml', source: TABLE },
    ],
    EVENT_REGISTRY,
    new Map(),
  );
  expect(r.problems.map(formatProblem)).toEqual([]);
  return r.flows;
}

async function run(yaml: string, recordTo?: string) {
  const parsed = parseTranscripts(yaml, 'shop.test.yaml');
  expect(parsed.problems.map(formatProblem)).toEqual([]);
  return runTranscript(parsed.transcripts[0]!, {
    flows: compiled(),
    ...(recordTo ? { recorder: (now: () => number) => createRecorder(recordTo, { now }) } : {}),
  });
}

const SHIPPED = `flow: shop
name: shipped
turns:
  - start: true
    bot: { send: Your name? }
  - say: Ann
    bot: { send: "Ann, we will tell you when it ships." }
  - say: where is it?
    bot: { send: "Ann, we will tell you when it ships." }
  - event: { order_shipped: { id: 7, carrier: DHL } }
    bot:
      - send: Shipped by DHL
      - send: Order 7 is on its way.
`;

describe('events in transcripts', () => {
  it('an event turn resumes the waiting step with its payload', async () => {
    const r = await run(SHIPPED);
    expect(r.failure?.report).toBeUndefined();
  });

  it('the long form takes a key; an event the flow refuses fails the turn with the problems', async () => {
    const ok = await run(`flow: shop
name: keyed
turns:
  - start: true
    bot: { send: Your name? }
  - say: Bo
    bot: { send: "Bo, we will tell you when it ships." }
  - event: { name: order_shipped, payload: { id: 8 }, key: s8 }
    bot: [{ send: "Shipped by " }, { send: Order 8 is on its way. }]
`);
    expect(ok.failure?.report).toBeUndefined();
    const bad = await run(`flow: shop
name: refused
turns:
  - start: true
    bot: { send: Your name? }
  - event: "order_shipped { id: seven }"
    bot: nothing
`);
    expect(bad.failure?.report).toMatch(/BOTFLOW_EVENT_INVALID|payload\.id/);
  });

  it('a transcript that names an event badly is a problem at its line', () => {
    const parsed = parseTranscripts(
      'flow: shop\nname: n\nturns:\n  - event: "{ id: 7 }"\n    bot: nothing\n',
      'shop.test.yaml',
    );
    expect(parsed.problems.map(formatProblem).join('\n')).toContain('does not start with an event name');
  });
});

describe('on_event on an input step', () => {
  it('a form submitted from a mini-app answers the step the person is on', async () => {
    const form = `flow: form
start: ask
triggers: [{ command: form }]
events:
  form_submitted: { payload: { type: object, properties: { email: { type: string } }, required: [email] } }
steps:
  ask:
    type: input
    say: Your email? (or fill in the form)
    input: email
    retries: { max: 2, exhausted: { goto: later } }
    save: email
    on_event:
      form_submitted: { save_as: form, set: { email: "= form.email" }, goto: done }
    next: done
  done: { type: end, say: "We will write to {{email}}." }
  later: { type: end, say: Another time. }
`;
    const r = compileSources([{ file: 'form.flow.yaml', source: form }], EVENT_REGISTRY, new Map());
    expect(r.problems.map(formatProblem)).toEqual([]);
    const parsed = parseTranscripts(
      `flow: form
name: the form
turns:
  - say: /form
    bot: { send: Your email? (or fill in the form) }
  - event: { form_submitted: { email: ann@example.org } }
    bot: { send: We will write to ann@example.org. }
`,
      'form.test.yaml',
    );
    const result = await runTranscript(parsed.transcripts[0]!, { flows: r.flows });
    expect(result.failure?.report).toBeUndefined();
  });
});

describe('while_elsewhere: { goto }', () => {
  it('takes the person to a step of the flow from any step that does not take the event', async () => {
    const flow = `flow: order
start: ask
triggers: [{ command: order }]
events:
  order_cancelled:
    payload: { type: object, properties: { reason: { type: string } }, required: [reason] }
    while_elsewhere: { save_as: why, say: "The shop cancelled: {{why.reason}}", goto: cancelled }
steps:
  ask:
    type: input
    say: How many?
    input: integer
    retries: { max: 2, exhausted: { goto: cancelled } }
    save: n
    next: done
  done: { type: end, say: "{{n}} ordered." }
  cancelled: { type: end, say: Nothing was ordered. }
`;
    const r = compileSources([{ file: 'order.flow.yaml', source: flow }], EVENT_REGISTRY, new Map());
    expect(r.problems.map(formatProblem)).toEqual([]);
    const parsed = parseTranscripts(
      `flow: order
name: cancelled while asking
turns:
  - say: /order
    bot: { send: How many? }
  - event: { order_cancelled: { reason: out of stock } }
    bot:
      - send: "The shop cancelled: out of stock"
      - send: Nothing was ordered.
`,
      'order.test.yaml',
    );
    const result = await runTranscript(parsed.transcripts[0]!, { flows: r.flows });
    expect(result.failure?.report).toBeUndefined();
    // botflow check: the step named must exist, like any goto.
    const typo = compileSources(
      [
        {
          file: 'order.flow.yaml',
          source: flow.replace('goto: cancelled }\nsteps', 'goto: canceled }\nsteps'),
        },
      ],
      EVENT_REGISTRY,
      new Map(),
    );
    expect(typo.problems.map((p) => p.message).join('\n')).toContain('canceled');
  });
});

describe('events in recordings', () => {
  it('are recorded where they came and replayed with no differences; a changed route is reported', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'botflow-events-rec-')), 'rec.jsonl');
    const r = await run(SHIPPED, file);
    expect(r.failure?.report).toBeUndefined();
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.type === 'event')).toEqual([
      {
        type: 'event',
        at: expect.any(Number),
        conversation: expect.stringMatching(/^u:\d+$/),
        event: expect.objectContaining({ name: 'order_shipped', payload: { id: 7, carrier: 'DHL' } }),
      },
    ]);
    const recording = readRecording(file);
    expect(recording.events).toHaveLength(1);
    expect(recording.events![0]!.after).toBe(3);
    const same = await replay(recording, { flows: compiled() });
    expect(same.differences.map((d) => d.text)).toEqual([]);
    expect(same.replayedCalls).toBe(same.recordedCalls);
    const changed = await replay(recording, {
      flows: compiled(
        SHOP.replace('say: "Shipped by {{shipment.carrier}}"', 'say: "Sent with {{shipment.carrier}}"'),
      ),
    });
    expect(changed.differences).toHaveLength(1);
    expect(changed.differences[0]!.text).toContain('Sent with DHL');
  });

  it("a database's inbox gives its events back to replay (botflow replay --db)", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'botflow-events-db-')), 'bot.db');
    const db = openDatabase({ path });
    let mids = 0;
    const api = {
      call: async (_op: string, args: Record<string, unknown>) => ({
        message: { body: { mid: `mid.${++mids}`, text: args.text }, timestamp: 1 },
      }),
    } as unknown as EngineApi;
    const at = Date.UTC(2026, 0, 5, 9);
    const engine = createEngine({
      db,
      flows: compiled(),
      api,
      secret: 'replay-db-secret',
      now: () => at + 5000,
    });
    const inbox = db.prepare(
      "INSERT INTO inbox (kind, dedupe_key, conversation_key, update_type, payload, received_at) VALUES ('update', ?, 'u:1', ?, ?, ?)",
    );
    inbox.run('b1', 'bot_started', JSON.stringify(botStarted(1, at)), at);
    inbox.run('m1', 'message_created', JSON.stringify(textMessage(1, at + 1000, 'Ann')), at + 1000);
    engine.processPending();
    await engine.events.send({
      name: 'order_shipped',
      to: { userId: 1 },
      payload: { id: 4, carrier: 'UPS' },
    });
    engine.start();
    await engine.drain();
    await engine.stop();
    db.close();
    const recording = await recordingFromDatabase({ path });
    expect(recording.events?.map((e) => [e.event.name, e.conversation, e.after])).toEqual([
      ['order_shipped', 'u:1', 2],
    ]);
    const result = await replay(recording, { flows: compiled() });
    expect(result.recordedCalls).toBe(4);
    expect(result.differences.map((d) => d.text)).toEqual([]);
  });
});
