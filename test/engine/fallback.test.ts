/**
 * A fallback flow (`triggers: [{ fallback: true }]`): a person who writes when no flow is running and no
 * other trigger matches (after a flow ended) gets its answer instead of silence; any other trigger wins.
 * Real SQLite, the engine as `botflow run` drives it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { botStarted, textMessage } from './fixtures.ts';
import { EngineOnDisk } from './harness.ts';

const FLOWS = [
  {
    file: 'hello.flow.yaml',
    source:
      'flow: hello\nstart: hi\ntriggers: [{ bot_started: true }, { command: hello }]\nsteps:\n' +
      '  hi: { type: end, say: "Hi! Nice to meet you." }\n',
  },
  {
    file: 'fallback.flow.yaml',
    source:
      'flow: fallback\nstart: answer\ntriggers: [{ fallback: true }]\nsteps:\n' +
      '  answer: { type: end, say: "I did not get that: send /hello to start again." }\n',
  },
];

let h: EngineOnDisk | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a fallback flow', () => {
  it('answers what no trigger matches once a flow ended, and never takes what another trigger starts', () => {
    const { flows, problems } = compileSources(FLOWS, EMPTY_REGISTRY, new Map());
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    h = new EngineOnDisk(() => flows);
    h.deliver(botStarted(1, h.time));
    h.engine.processPending();
    expect(h.texts('u:1')).toEqual(['Hi! Nice to meet you.']);

    // The flow ended: a text, or a command nobody declares, starts the fallback.
    h.deliver(textMessage(1, h.time + 1, 'what now?'));
    h.engine.processPending();
    h.deliver(textMessage(1, h.time + 2, '/unknown'));
    h.engine.processPending();
    // A trigger of another flow still wins.
    h.deliver(textMessage(1, h.time + 3, '/hello'));
    h.engine.processPending();
    expect(h.texts('u:1')).toEqual([
      'Hi! Nice to meet you.',
      'I did not get that: send /hello to start again.',
      'I did not get that: send /hello to start again.',
      'Hi! Nice to meet you.',
    ]);
    expect(h.engine.sessions.history('u:1').map((e) => e.status)).not.toContain('ignored');
  });
});
