/**
 * Values that never go stale and failures that never leave a person unanswered: `set:` on step entry,
 * `next` routes, branch cases and buttons; `computed:` values read when used; a run-time failure (an
 * expression over an unset variable) takes the step's `on_error`, the flow's, or a built-in apology and end.
 */
import { describe, expect, it } from 'vitest';
import { ButtonSigner } from '../../src/engine/step/buttons.ts';
import type { EventMeta, FlowDefinition, FlowEvent } from '../../src/engine/step/contract.ts';
import { type StepResult, step } from '../../src/engine/step/step.ts';
import { withComputed } from '../../src/flows/computed.ts';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry, EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { readVar } from '../../src/flows/vars.ts';

const signer = new ButtonSigner('a-test-secret-of-enough-length');
const key = 'u:7';
const options = { conversationKey: key, sign: (i: number, p: string) => signer.sign(key, i, p) };
const meta = (locale = 'en'): EventMeta => ({
  conversation: key,
  chatId: 1007,
  userId: 7,
  now: 1_000,
  locale,
});

function compile(source: string, registry = EMPTY_REGISTRY): FlowDefinition {
  const id = /^flow: (\w+)/m.exec(source)![1];
  const r = compileSources([{ file: `${id}.flow.yaml`, source }], registry, new Map());
  expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return r.flows[0]!;
}

/** A conversation driven through the engine's pure step. */
class Chat {
  last: StepResult;
  constructor(
    readonly flow: FlowDefinition,
    locale = 'en',
  ) {
    this.last = step(
      flow,
      { revision: 0, stepInstance: 0 },
      { type: 'start', input: { trigger: { kind: 'bot_started' }, meta: meta(locale) } },
      options,
    );
  }
  send(event: Omit<FlowEvent, 'meta'>): StepResult {
    const prev = this.last;
    this.last = step(
      this.flow,
      { snapshot: prev.snapshot, revision: prev.revision, stepInstance: prev.stepInstance },
      { type: 'event', event: { ...event, meta: meta() } as FlowEvent },
      options,
    );
    return this.last;
  }
  text(text: string) {
    return this.send({ type: 'message', text, attachments: [], message: {} as never } as never);
  }
  press(button: string) {
    return this.send({ type: 'button', button, callbackId: 'cb' } as never);
  }
  get said(): string[] {
    return this.last.calls.filter((c) => c.op === 'sendMessage').map((c) => String(c.args.text));
  }
  get vars(): Record<string, unknown> {
    return (this.last.snapshot.context as { vars: Record<string, unknown> }).vars;
  }
  get at(): unknown {
    return this.last.snapshot.value;
  }
}

const ORDER = `
flow: order
start: ask_qty
computed:
  total: "= qty * price + delivery"
steps:
  ask_qty:
    type: input
    set: { price: 12, delivery: 3 }
    say: "How many pizzas?"
    input: integer
    retries: { max: 3, exhausted: { goto: done } }
    save: qty
    next:
      - when: { var: qty, ge: 10 }
        goto: confirm
        set: { bulk: true }
      - goto: confirm
        set: { bulk: false }
  confirm:
    type: menu
    say: "{{qty}} pizzas, {{total}} EUR in all (bulk: {{bulk}})"
    keyboard:
      - - { id: change, text: "Change quantity", goto: ask_qty, come_back: true }
      - - { id: express, text: "Express delivery", set: { delivery: "= delivery + 5" }, goto: express }
      - - { id: ok, text: "Order", goto: done }
  express:
    type: message
    say: "Express it is."
    next: confirm
  done:
    type: end
    say: "Thank you"
`;

describe('set: and computed values', () => {
  it('sets on step entry and on the next route taken, and a computed total is read fresh after an edit', () => {
    const chat = new Chat(compile(ORDER));
    expect(chat.vars).toMatchObject({ price: 12, delivery: 3 });
    chat.text('2');
    expect(chat.said).toEqual(['2 pizzas, 27 EUR in all (bulk: false)']);
    expect(chat.vars).not.toHaveProperty('total'); // never stored: worked out when read
    chat.press('express');
    expect(chat.said).toEqual(['Express it is.', '2 pizzas, 32 EUR in all (bulk: false)']);
    chat.press('change');
    chat.text('10');
    // come_back returns to the summary: the total follows the new quantity (a set: value would be stale);
    // entering ask_qty again ran its own set: (delivery back to 3).
    expect(chat.at).toBe('confirm');
    expect(chat.said.at(-1)).toBe('10 pizzas, 123 EUR in all (bulk: false)');
  });

  it('reads computed values in a machine made with other implementations (coverage wraps the actions)', () => {
    const flow = compile(ORDER);
    const covered = { ...flow, machine: flow.machine.provide({}) };
    const chat = new Chat(covered);
    chat.text('2');
    expect(chat.said).toEqual(['2 pizzas, 27 EUR in all (bulk: false)']);
  });

  it('sets on branch cases', () => {
    const chat = new Chat(
      compile(`
flow: size
start: ask
steps:
  ask:
    type: input
    say: "Guests?"
    input: integer
    retries: { max: 3, exhausted: { goto: done } }
    save: guests
    next: route
  route:
    type: branch
    cases:
      - when: { expr: "guests > 6" }
        goto: done
        set: { table: "= concat(\\"large for \\", text(guests))" }
    else: done
  done:
    type: end
    say: "Table: {{table}}"
`),
    );
    chat.text('8');
    expect(chat.said).toEqual(['Table: large for 8']);
  });
});

describe('a run-time failure never leaves a person unanswered', () => {
  const BROKEN = (onError: string, flowOnError = '') => `
flow: order
start: ask_qty
${flowOnError}
steps:
  ask_qty:
    type: input
    say: "How many?"
    input: integer
    retries: { max: 3, exhausted: { goto: done } }
    save: qty
    next: price
  price:
    type: message
    say: "Working out your total…"
    set: { total: "= qtty * 12" }
    ${onError}
    next: done
  sorry:
    type: message
    say: "We could not price that; let us start over."
    next: ask_qty
  done:
    type: end
    say: "Total {{total}}"
`;

  it("takes the failing step's on_error route: nothing of the failed event is sent", () => {
    const chat = new Chat(compile(BROKEN('on_error: { goto: sorry }')));
    const r = chat.text('2');
    expect(chat.said).toEqual(['We could not price that; let us start over.', 'How many?']);
    expect(r.failure).toMatchObject({ step: 'price', recovery: 'route' });
    expect(r.failure?.message).toMatch(/qtty/);
    expect(chat.at).toBe('ask_qty');
    // The conversation goes on: later messages are answered.
    chat.text('3');
    expect(chat.said.length).toBeGreaterThan(0);
  });

  it("falls back to the flow's on_error, then to a localised apology and a clean end", () => {
    const routed = new Chat(
      compile(BROKEN('', 'on_error: { say: "Oops, back to the start", goto: ask_qty }')),
    );
    routed.text('2');
    expect(routed.said).toEqual(['Oops, back to the start', 'How many?']);

    const plain = new Chat(compile(BROKEN('')), 'ru');
    const r = plain.text('2');
    expect(plain.said).toEqual([expect.stringMatching(/^Извините/)]);
    expect(r.status).toBe('done');
    expect(r.failure).toMatchObject({ step: 'price', recovery: 'apology' });
  });

  it('apologises when the on_error route fails as well, and when the very first step fails', () => {
    const chat = new Chat(
      compile(BROKEN('on_error: { say: "Sorry {{nobody}}", set: { x: "= 1 / nothing * upper(2)" } }')),
    );
    chat.text('2');
    expect(chat.said).toEqual([expect.stringMatching(/^Sorry, something went wrong/)]);
    expect(chat.last.status).toBe('done');

    const first = new Chat(
      compile(`
flow: first
start: hello
steps:
  hello:
    type: message
    set: { n: "= upper(42)" }
    say: "Hi"
    next: done
  done:
    type: end
`),
    );
    expect(first.last.status).toBe('done');
    expect(first.said).toEqual([expect.stringMatching(/^Sorry, something went wrong/)]);
    expect(first.last.failure).toMatchObject({ step: 'hello', recovery: 'apology' });
  });

  it('a guard that throws takes the same recovery, on a next route and on a branch case', () => {
    // XState rethrows a guard's error as a plain Error: the failure must still be the flow's, not the event's.
    const crm = defineRegistry({
      guards: {
        is_vip: () => {
          throw new Error('the CRM is down');
        },
      },
    });
    const GUARDED = `
flow: guarded
start: ask_qty
steps:
  ask_qty:
    type: input
    say: "How many?"
    input: integer
    retries: { max: 3, exhausted: { goto: done } }
    save: qty
    on_error: { say: "Let us try that again.", goto: ask_qty }
    next:
      - when: { guard: is_vip }
        goto: done
      - goto: which
  which:
    type: branch
    cases: [{ when: { guard: is_vip }, goto: done }]
    else: done
  done:
    type: end
    say: "Thanks"
`;
    const routed = new Chat(compile(GUARDED, crm));
    const r = routed.text('2');
    expect(routed.said).toEqual(['Let us try that again.', 'How many?']);
    expect(r.failure).toMatchObject({ step: 'ask_qty', recovery: 'route', message: 'the CRM is down' });

    const branch = new Chat(
      compile(GUARDED.replace('when: { guard: is_vip }\n', 'when: { var: qty, eq: 0 }\n'), crm),
    );
    const b = branch.text('2');
    expect(branch.said).toEqual([expect.stringMatching(/^Sorry, something went wrong/)]);
    expect(b.status).toBe('done');
    expect(b.failure).toMatchObject({ step: 'which', recovery: 'apology' });
    expect(b.failure?.where).toBe('guarded.flow.yaml:16');
  });

  it('a text that cannot be drawn (a computed value failing inside {{…}}) is a failure of its step', () => {
    const chat = new Chat(
      compile(`
flow: render
start: ask
computed:
  shout: "= upper(n)"
steps:
  ask:
    type: input
    say: "A number?"
    input: integer
    retries: { max: 2, exhausted: { goto: show } }
    save: n
    next: show
  show:
    type: end
    say: "You said {{shout}}"
`),
    );
    const r = chat.text('3');
    expect(chat.said).toEqual([expect.stringMatching(/^Sorry, something went wrong/)]);
    expect(r.failure).toMatchObject({ step: 'show', recovery: 'apology', where: 'render.flow.yaml:14' });
    expect(r.failure?.message).toMatch(/computed value "shout"/);
  });

  it('refuses a computed value that depends on itself: botflow check before, a failure at run time', () => {
    const r = compileSources(
      [
        {
          file: 'loop.flow.yaml',
          source:
            'flow: loop\nstart: show\ncomputed:\n  a: "= b + 1"\n  b: "= a + 1"\nsteps:\n  show:\n    type: end\n    say: "{{a}}"\n',
        },
      ],
      EMPTY_REGISTRY,
      new Map(),
    );
    expect(r.problems.filter((p) => p.severity === 'error').map((p) => p.message)).toEqual([
      'computed values read each other in a circle: a → b → a',
    ]);
    const read = () =>
      withComputed({ a: '= b + 1', b: '= a + 1' }, { now: 0, locale: 'en' }, () => readVar({}, 'a'));
    expect(read).toThrow(/depends on itself: a → b → a/);
  });
});
