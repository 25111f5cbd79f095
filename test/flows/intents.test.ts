/** Intents (`understand:`): the keyword classifier, thresholds, unclear and unknown routes, global intents. */
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { classifyKeywords } from '../../src/flows/understand/keywords.ts';
import { Drive } from './drive.ts';

const TABLE = {
  book: { en: ['table', 'book', 'reserve'], ru: ['стол', 'забронировать'] },
  menu: ['menu', 'what do you serve'],
  party: ['/(?<guests>\\d+) (people|guests)/'],
  human: ['human', 'operator', 'talk to a person'],
};
const ALL = Object.keys(TABLE);

describe('the keyword classifier', () => {
  it('finds keywords as written, in other forms, with typos; per language; deterministic', () => {
    expect(classifyKeywords("I'd like a table", 'en', ALL, TABLE)).toEqual({ intent: 'book', confidence: 1 });
    expect(classifyKeywords('Booking for tonight?', 'en', ALL, TABLE)).toEqual({
      intent: 'book',
      confidence: 0.8,
    });
    expect(classifyKeywords('Хочу забронирую столик', 'ru-RU', ALL, TABLE).intent).toBe('book');
    expect(classifyKeywords('reserv', 'en', ALL, TABLE)).toEqual({ intent: 'book', confidence: 0.8 });
    expect(classifyKeywords('opertor', 'en', ALL, TABLE)).toEqual({ intent: 'human', confidence: 0.5 });
    expect(classifyKeywords('What do you serve?', 'en', ALL, TABLE)).toEqual({
      intent: 'menu',
      confidence: 1,
    });
    expect(classifyKeywords('nice weather', 'en', ALL, TABLE)).toEqual({ intent: null, confidence: 0 });
    // Only the intents asked about count.
    expect(classifyKeywords('a table', 'en', ['menu'], TABLE).intent).toBeNull();
  });

  it('reads slots from named groups, and calls two equal intents unclear', () => {
    expect(classifyKeywords('We are 4 people', 'en', ALL, TABLE)).toEqual({
      intent: 'party',
      confidence: 1,
      slots: { guests: '4' },
    });
    expect(classifyKeywords('the menu or a table?', 'en', ALL, TABLE)).toEqual({
      intent: 'book',
      confidence: 0.5,
    });
  });
});

const FLOW = (more = '') => `
flow: cafe
start: hello
understand:
  intents:
    human: { say: "An operator will answer here.", goto: handoff }
  unclear: { say: "Sorry, did you mean an operator?" }
intents:
  book: [table, book, reserve]
  menu: [menu]
  party: ["/(?<guests>\\\\d+) (people|guests)/"]
  human: [human, operator]
steps:
  hello:
    type: menu
    say: How can I help?
    keyboard:
      - - { id: hours, text: Opening hours, say: "9 to 5." }
    understand:
      threshold: 0.7
      intents:
        book: { goto: ask_name }
        party: { goto: ask_name, save_slots: true }
        menu: { say: "Here is the menu." }
      unclear: { say: "Did you mean a table?" }
      unknown: { goto: fallback }
  ask_name:
    type: input
    say: Your name?
    input: text
    retries: { max: 2, exhausted: { goto: fallback } }
    save: name
    next: done
  ask_size:
    type: input
    say: How many?
    input: integer
    retries: { max: 2, exhausted: { goto: fallback } }
    save: size
    next: done${more}
  fallback: { type: end, say: "I did not get that." }
  handoff: { type: end, say: "Please wait." }
  done: { type: end, say: "Thanks, {{name}}." }
`;

function compile(source: string, registry = defineRegistry({})): FlowDefinition {
  const r = compileSources([{ file: 'cafe.flow.yaml', source }], registry, new Map());
  expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return r.flows[0]!;
}

describe('understand: at a step', () => {
  it('routes a confident intent; below the threshold asks and stays; no intent takes unknown', () => {
    const d = new Drive(compile(FLOW()));
    d.text('A table please');
    expect(d.step).toBe('ask_name');
    const typo = new Drive(compile(FLOW()));
    typo.text('Booking'); // 0.8 ≥ 0.7
    expect(typo.step).toBe('ask_name');
    const low = new Drive(compile(FLOW()));
    low.text('tabel'); // a typo: 0.5 < 0.7
    expect(low.step).toBe('hello');
    expect(low.said).toEqual(['Did you mean a table?']);
    const none = new Drive(compile(FLOW()));
    none.text('nice weather');
    expect(none.step).toBe('fallback');
    expect(none.said).toEqual(['I did not get that.']);
  });

  it('a route without goto stays; slots are saved when asked; a button named in text still wins', () => {
    const d = new Drive(compile(FLOW()));
    d.text('show me the menu');
    expect(d.step).toBe('hello');
    expect(d.said).toEqual(['Here is the menu.']);
    d.text('we are 3 guests');
    expect(d.step).toBe('ask_name');
    expect(d.vars.guests).toBe('3');
    const b = new Drive(compile(FLOW()));
    b.text('opening hours');
    expect(b.said).toEqual(['9 to 5.']);
    expect(b.step).toBe('hello');
  });

  it('global intents work from every step, before a free-text answer, and after a number fails', () => {
    const d = new Drive(compile(FLOW()));
    d.text('book');
    d.text('I want a human');
    expect(d.step).toBe('handoff');
    expect(d.said).toEqual(['An operator will answer here.', 'Please wait.']);
    const n = new Drive(compile(FLOW(`\n    understand: { intents: { book: { goto: done } } }`)));
    n.text('book');
    n.text('Anna');
    expect(n.step).toBe('done');
    expect(n.vars.name).toBe('Anna');
  });
});

describe('a registered classifier', () => {
  const registry = defineRegistry({ tasks: { nlu: () => ({ intent: null, confidence: 0 }) } });
  const flow = FLOW().replace(
    '      threshold: 0.7',
    '      classifier: nlu\n      threshold: 0.7\n      timeout: 5s',
  );
  const result = (d: Drive, result: unknown) =>
    d.send({ type: 'task.done', task: 'nlu', ref: 'hello:understand', result } as never);

  it('gets the text as a task of the fixed shape, and its result routes the step', () => {
    const d = new Drive(compile(flow, registry));
    d.text('Could I get a table for two?');
    expect(d.step).toBe('hello');
    expect(d.effects.find((e) => e.kind === 'task.start')).toEqual({
      kind: 'task.start',
      task: 'nlu',
      input: {
        text: 'Could I get a table for two?',
        locale: 'en',
        intents: ['book', 'party', 'menu', 'human'],
        vars: {},
      },
      ref: 'hello:understand',
      policy: { timeoutMs: 5000 },
    });
    result(d, { intent: 'party', confidence: 0.9, slots: { guests: 2 } });
    expect(d.step).toBe('ask_name');
    expect(d.vars.guests).toBe(2);
  });

  it('counts the text it was given as unrecognised when its answer routes nothing sure (the funnel)', () => {
    const heard = (d: Drive) => d.effects.filter((e) => e.kind === 'input.unrecognised');
    const context = (d: Drive) => d.snapshot.context as { heard?: string };
    const low = new Drive(compile(flow, registry));
    low.text('hmm table?');
    expect(heard(low)).toEqual([]); // the classifier has not answered yet
    expect(context(low).heard).toBe('hmm table?');
    result(low, { intent: 'book', confidence: 0.65 }); // unclear
    expect(heard(low)).toEqual([{ kind: 'input.unrecognised', text: 'hmm table?' }]);
    expect(context(low).heard).toBeUndefined();
    const none = new Drive(compile(flow, registry));
    none.text('weather');
    result(none, { intent: null, confidence: 0.2 }); // unknown
    expect(heard(none)).toEqual([{ kind: 'input.unrecognised', text: 'weather' }]);
    const sure = new Drive(compile(flow, registry));
    sure.text('a table for 2');
    result(sure, { intent: 'party', confidence: 0.9, slots: { guests: 2 } });
    expect(heard(sure)).toEqual([]);
    expect(context(sure).heard).toBeUndefined(); // forgotten once an intent took it
  });

  it('below the threshold asks, no intent (or a failure, or a bad result) takes unknown', () => {
    const low = new Drive(compile(flow, registry));
    low.text('hmm table?');
    result(low, { intent: 'book', confidence: 0.65 });
    expect(low.step).toBe('hello');
    expect(low.said).toEqual(['Did you mean a table?']);
    const none = new Drive(compile(flow, registry));
    none.text('weather');
    result(none, { intent: null, confidence: 0.2 });
    expect(none.step).toBe('fallback');
    const bad = new Drive(compile(flow, registry));
    bad.text('weather');
    result(bad, { intent: 7 });
    expect(bad.step).toBe('fallback');
    const failed = new Drive(compile(flow, registry));
    failed.text('weather');
    failed.send({
      type: 'task.failed',
      task: 'nlu',
      ref: 'hello:understand',
      error: { code: 'timeout', message: 't' },
    } as never);
    expect(failed.step).toBe('fallback');
    const onText = new Drive(
      compile(
        flow
          .replace('      unknown: { goto: fallback }\n', '')
          .replace(
            '    understand:\n      classifier',
            '    on_text: { say: "Press a button." }\n    understand:\n      classifier',
          ),
        registry,
      ),
    );
    onText.text('weather');
    result(onText, { intent: null, confidence: 0 });
    expect(onText.said).toEqual(['Press a button.']);
    expect(onText.step).toBe('hello');
    const human = new Drive(compile(flow, registry));
    human.text('operator');
    result(human, { intent: 'human', confidence: 0.95 });
    expect(human.step).toBe('handoff');
  });
});

describe('intents and other steps', () => {
  it('at an input with options, an option named wins over a global intent; a called flow reads its own keywords', () => {
    const caller = `
flow: main
start: pick
understand:
  intents:
    human: { goto: handoff }
intents:
  human: [human, operator]
steps:
  pick:
    type: input
    say: Which?
    input: choice
    options: [{ id: operator, text: Operator console }, { id: tea, text: Tea }]
    retries: { max: 2, exhausted: { goto: handoff } }
    save: picked
    next: more
  more: { type: call, flow: extra, next: handoff }
  handoff: { type: end, say: "Please wait." }
`;
    const callee = `
flow: extra
start: ask
intents:
  more: [another, more]
steps:
  ask:
    type: menu
    say: Anything else?
    keyboard: [[{ id: no, text: No, goto: bye }]]
    understand:
      intents:
        more: { say: "Coming up.", goto: bye }
  bye: { type: end }
`;
    const r = compileSources(
      [
        { file: 'main.flow.yaml', source: caller },
        { file: 'extra.flow.yaml', source: callee },
      ],
      defineRegistry({}),
      new Map(),
    );
    expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const d = new Drive(r.flows.find((f) => f.id === 'main')!);
    d.text('operator console');
    expect(d.vars.picked).toBe('operator');
    expect(d.said).toEqual(['Anything else?']);
    d.text('one more please');
    expect(d.said).toEqual(['Coming up.', 'Please wait.']);
    const g = new Drive(r.flows.find((f) => f.id === 'main')!);
    g.text('a human please');
    expect(g.step).toBe('handoff');
  });
});

describe('intents at a wait step', () => {
  it('route typed text while the step waits for an event; other text draws it again', () => {
    const source = `
flow: cafe
start: placed
events:
  order_shipped: {}
understand:
  intents:
    human: { goto: operator }
intents:
  human: [human, operator]
  where: ["where is", "status"]
steps:
  placed:
    type: wait
    say: We will tell you when it ships.
    on_event:
      order_shipped: { goto: shipped }
    understand:
      intents:
        where: { say: "Still at the warehouse." }
  shipped: { type: end, say: Shipped. }
  operator: { type: end, say: "An operator will answer." }
`;
    const d = new Drive(compile(source));
    d.text('where is my order?');
    expect(d.said).toEqual(['Still at the warehouse.']);
    expect(d.step).toBe('placed');
    d.text('hello');
    expect(d.said).toEqual(['We will tell you when it ships.']);
    d.text('an operator please');
    expect(d.step).toBe('operator');
  });
});
