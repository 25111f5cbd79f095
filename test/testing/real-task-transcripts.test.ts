/**
 * Transcripts that run the registry's own task code (`tasks: real`, or per task), with the outside world
 * faked at the HTTP level (`http:`): a coded TaskError from real code takes its on_error route, retries run
 * on the virtual clock, a request nobody faked is named in the report; stubs that throw unexpected errors
 * or retryable coded ones.
 */
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { defineRegistry, defineTask, TaskError } from '../../src/flows/registry.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';

const FLOW = `
flow: pizza
start: menu
triggers: [{ command: order }]
steps:
  menu:
    type: message
    say: Reading the menu…
    do:
      - task: find_menu
        save_as: menu
        on_error: { say: "No menu ({{task_error.code}}).", goto: bye }
    next: order
  order:
    type: message
    say: "Ordering {{menu.0}}…"
    do:
      - task: place_order
        input: { pizza: "{{menu.0}}" }
        save_as: placed
        retry: { attempts: 3, backoff: 30s, on: [unavailable] }
        on_error:
          - { code: sold_out, say: "Sold out, sorry.", goto: bye }
          - { say: "Could not order ({{task_error.code}}).", goto: bye }
    next: done
  done: { type: end, say: "Order {{placed.id}} is on its way." }
  bye: { type: end, say: Bye. }
`;

/** The project's own tasks: they call its systems over HTTP. */
const REGISTRY = defineRegistry({
  tasks: {
    find_menu: async (_input: unknown, { signal }) => {
      const res = await fetch('https://menu.example/api/menu', { signal });
      if (!res.ok) throw new TaskError('menu_down', `HTTP ${res.status}`);
      return (await res.json()) as string[];
    },
    place_order: defineTask({
      async run(input: { pizza: string }, { idempotencyKey, signal }) {
        const res = await fetch('https://orders.example/api/orders', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
          body: JSON.stringify(input),
          signal,
        });
        if (res.status === 409) throw new TaskError('sold_out', 'no more of it today');
        if (res.status === 503) throw new TaskError('unavailable', 'the kitchen is busy');
        return (await res.json()) as { id: string };
      },
    }),
  },
});

let flows: FlowDefinition[] | undefined;
function compiled(): FlowDefinition[] {
  if (flows) return flows;
  const r = compileSources([{ file: 'pizza.flow.yaml', source: FLOW }], REGISTRY, new Map());
  expect(r.problems.filter((p) => p.severity !== 'note').map(formatProblem)).toEqual([]);
  flows = r.flows;
  return flows;
}

async function run(yaml: string) {
  const parsed = parseTranscripts(`flow: pizza\nname: n\n${yaml}`, 'pizza.test.yaml');
  expect(parsed.problems.map(formatProblem)).toEqual([]);
  return runTranscript(parsed.transcripts[0]!, { flows: compiled(), tasks: REGISTRY.tasks });
}

const MENU = `  - { method: GET, url: "https://menu.example/api/menu", reply: { status: 200, body: [Margherita] } }`;
const START = `turns:
  - say: /order
    bot:
      - send: Reading the menu…
      - task: find_menu
      - send: Ordering Margherita…
      - task: { name: place_order, input: { pizza: Margherita } }
`;

describe('transcripts with real tasks', () => {
  it('run the real code against faked HTTP; retry.on retries on the virtual clock', async () => {
    const r = await run(`tasks: real
http:
${MENU}
  - { method: POST, url: "https://orders.example/api/orders", reply: { status: 503 }, times: 1 }
  - { method: POST, url: "https://orders.example/api/orders", reply: { status: 201, body: { id: A7 } } }
${START}      - send: Order A7 is on its way.
`);
    expect(r.failure?.report).toBeUndefined();
  });

  it('route a coded TaskError thrown by the real code', async () => {
    const r = await run(`tasks: real
http:
${MENU}
  - { method: POST, url: "https://orders.example/api/orders", reply: { status: 409 } }
${START}      - send: Sold out, sorry.
      - send: Bye.
`);
    expect(r.failure?.report).toBeUndefined();
  });

  it('name the request nobody faked, and never reach the network', async () => {
    const r = await run(`tasks: real
turns:
  - say: /order
    bot: [{ send: Reading the menu… }, { task: find_menu }, { send: Ordering Margherita… }]
`);
    expect(r.passed).toBe(false);
    expect(r.failure!.report).toContain(
      'http: no fake for GET https://menu.example/api/menu: add it under http:',
    );
    expect(r.failure!.report).toContain('No menu (error).');
  });

  it('mix a real task with stubs of the others (per task: name: real)', async () => {
    const r = await run(`tasks:
  find_menu: real
  place_order: { error: sold_out }
http:
${MENU}
${START}      - send: Sold out, sorry.
      - send: Bye.
`);
    expect(r.failure?.report).toBeUndefined();
  });
});

describe('stubs that fail like real systems', () => {
  it('throw an unexpected error (retried, as a refused connection would be), then answer', async () => {
    const r = await run(`tasks:
  find_menu: { result: [Margherita] }
  place_order: [{ throw: "connect ECONNREFUSED 10.0.0.5:443" }, { result: { id: B2 } }]
${START}      - send: Order B2 is on its way.
`);
    expect(r.failure?.report).toBeUndefined();
  });

  it('fail with a retryable coded error until the attempts run out', async () => {
    const r = await run(`tasks:
  find_menu: { result: [Margherita] }
  place_order: { error: { code: oven_cold, retryable: true } }
${START}      - send: Could not order (oven_cold).
      - send: Bye.
`);
    expect(r.failure?.report).toBeUndefined();
  });

  it('report a malformed http fake at its place', () => {
    const parsed = parseTranscripts(
      'flow: pizza\nname: n\nhttp:\n  - { url: "/api/menu" }\nturns:\n  - say: /order\n    bot: nothing\n',
      'pizza.test.yaml',
    );
    expect(parsed.problems.map(formatProblem)).toEqual([
      expect.stringMatching(/^pizza\.test\.yaml:4:\d+: error: url is an absolute address/),
    ]);
  });
});
