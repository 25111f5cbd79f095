/** Choices built from data: `options_from` keyboards, paged, answered by index, with an empty-list path. */
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { Drive } from './drive.ts';

const FLOW = (extra = '') => `
flow: demo
start: wait
steps:
  wait:
    type: menu
    say: Ready?
    keyboard:
      - - { id: go, text: Go, goto: pick }
  pick:
    type: input
    say: Pick a time
    input: choice
    options_from:
      list: slots
      text: "{{item.time}} ({{item.seats}})"
      value: item.time
      page_size: 8
      empty: { say: "No free time that day.", goto: sorry }${extra}
    columns: 4
    retries: { max: 3, exhausted: { goto: sorry } }
    save: slot
    next: done
  done:
    type: end
    say: "Booked for {{slot}}."
  sorry:
    type: end
    say: Sorry.
`;

function compile(source: string): FlowDefinition {
  const r = compileSources([{ file: 'demo.flow.yaml', source }], EMPTY_REGISTRY, new Map());
  expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return r.flows[0]!;
}
const slots = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    time: `${String(8 + Math.floor(i / 4)).padStart(2, '0')}:${String((i % 4) * 15).padStart(2, '0')}`,
    seats: 2 + (i % 3),
  }));

type Keyboard = { payload: { buttons: { text: string; payload: string }[][] } };
const keyboardOf = (effects: unknown[]) => {
  const send = effects.find(
    (e) => (e as { op?: string }).op === 'sendMessage' || (e as { op?: string }).op === 'editMessage',
  ) as { op: string; args: { text: string; attachments: Keyboard[]; message_id?: string } } | undefined;
  return send;
};

/** The conversation waits on a menu with `slots` already known (a task's result); Go enters the step. */
function start(n: number): Drive {
  const def = compile(FLOW());
  const snapshot = def.machine.resolveState({
    value: 'wait',
    context: { vars: { slots: slots(n) }, retries: 0 },
  });
  const d = new Drive(def, { snapshot });
  d.press('go');
  return d;
}

describe('options_from', () => {
  it('pages through 40 choices 8 at a time, editing the pressed message, and saves the chosen value', () => {
    const d = start(40);
    const first = keyboardOf(d.effects)!;
    const rows = first.args.attachments[0]!.payload.buttons;
    expect(
      rows
        .slice(0, 2)
        .flat()
        .map((b) => b.text),
    ).toEqual([
      '08:00 (2)',
      '08:15 (3)',
      '08:30 (4)',
      '08:45 (2)',
      '09:00 (3)',
      '09:15 (4)',
      '09:30 (2)',
      '09:45 (3)',
    ]);
    expect(rows.at(-1)!.map((b) => [b.text, b.payload])).toEqual([['More ›', '#p1']]);
    // Four presses on "More ›" reach the last page; each edits the message that was pressed.
    for (let page = 1; page <= 4; page++) {
      const turned = keyboardOf(d.press(`#p${page}`, `mid.${page}`))!;
      expect(turned.op).toBe('editMessage');
      expect(turned.args.message_id).toBe(`mid.${page}`);
      const buttons = turned.args.attachments[0]!.payload.buttons;
      expect(buttons[0]![0]!.payload).toBe(`#${page * 8}`);
      expect(buttons.at(-1)!.map((b) => b.text)).toEqual(page === 4 ? ['‹ Back'] : ['‹ Back', 'More ›']);
    }
    expect(d.step).toBe('pick');
    d.press('#37');
    expect(d.step).toBe('done');
    expect(d.vars.slot).toBe(slots(40)[37]!.time);
  });

  it('accepts a typed choice by its text, and refuses one that is not on the list', () => {
    const d = start(5);
    d.text('nonsense');
    expect(d.step).toBe('pick');
    d.text('08:30 (4)');
    expect(d.step).toBe('done');
    expect(d.vars.slot).toBe('08:30');
  });

  it('takes the empty path at once when the list is empty, without asking', () => {
    const d = start(0);
    expect(d.step).toBe('sorry');
    const texts = d.effects
      .filter((e) => (e as { op?: string }).op === 'sendMessage')
      .map((e) => (e as unknown as { args: { text: string } }).args.text);
    expect(texts).toEqual(['No free time that day.', 'Sorry.']);
  });

  it('keeps the list it offered: a press picks from the copy, whatever the variable holds later', () => {
    const d = start(3);
    (d.snapshot.context as { vars: Record<string, unknown> }).vars.slots = [];
    d.press('#2');
    expect(d.vars.slot).toBe('08:30');
  });

  it('is checked: an empty path is required, and value names the element', () => {
    const problems = (src: string) =>
      compileSources([{ file: 'demo.flow.yaml', source: src }], EMPTY_REGISTRY, new Map())
        .problems.filter((p) => p.severity === 'error')
        .map((p) => p.message);
    expect(problems(FLOW().replace(/\n\s+empty: .*/, ''))).toEqual([
      expect.stringMatching(/options_from of "pick" has no empty path/),
    ]);
    expect(problems(FLOW().replace('value: item.time', 'value: time'))).toEqual([
      'value names the element (item) or a field of it',
    ]);
  });
});

describe('options_from calling a flow', () => {
  it('reads the computed values of a flow called when the list is empty (empty: { call })', () => {
    const r = compileSources(
      [
        {
          file: 'demo.flow.yaml',
          source: FLOW().replace(
            'empty: { say: "No free time that day.", goto: sorry }',
            'empty: { call: none_left }',
          ),
        },
        {
          file: 'none_left.flow.yaml',
          source: `flow: none_left
start: sorry
computed:
  day: '= "Monday"'
steps:
  sorry:
    type: message
    say: "Nothing free on {{day}}."
    next: later
  later:
    type: menu
    say: Try another day?
    keyboard:
      - - { id: ok, text: OK, goto: later }
`,
        },
      ],
      EMPTY_REGISTRY,
      new Map(),
    );
    expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const def = r.flows.find((f) => f.id === 'demo')!;
    const snapshot = def.machine.resolveState({
      value: 'wait',
      context: { vars: { slots: [] }, retries: 0 },
    });
    const d = new Drive(def, { snapshot });
    d.press('go');
    expect(d.said).toEqual(['Nothing free on Monday.', 'Try another day?']);
  });
});

describe('options_from in the engine', () => {
  const BOOKING = `
flow: table
start: wait
triggers:
  - bot_started: true
steps:
  wait:
    type: menu
    say: Ready?
    keyboard:
      - - { id: go, text: Go, goto: pick, set: { slots: '= ("18:00", "18:30", "19:00")' } }
  pick:
    type: input
    say: Pick a time
    input: choice
    options_from: { list: slots, empty: { goto: wait } }
    retries: { max: 3, exhausted: { goto: wait } }
    save: slot
    next: confirm
  confirm:
    type: menu
    say: "{{slot}}, right?"
    keyboard:
      - - { id: yes, text: Yes, goto: done }
  done:
    type: end
    say: "Booked: {{slot}}"
`;

  it('signs each choice for its step: a press on an old choice keyboard changes nothing', async () => {
    const { EngineOnDisk } = await import('../engine/harness.ts');
    const { botStarted, press } = await import('../engine/fixtures.ts');
    const h = new EngineOnDisk(() => [compile(BOOKING.replace('flow: table', 'flow: demo'))]);
    try {
      h.deliver(botStarted(7, h.time));
      h.engine.processPending();
      h.deliver(press(7, h.time, h.lastKeyboard('u:7').Go!));
      h.engine.processPending();
      const choices = h.lastKeyboard('u:7');
      expect(Object.keys(choices)).toEqual(['18:00', '18:30', '19:00']);
      h.deliver(press(7, h.time, choices['18:30']!));
      h.engine.processPending();
      expect(h.engine.sessions.get('u:7')).toMatchObject({
        step: 'confirm',
        context: { vars: { slot: '18:30' } },
      });
      // The same keyboard again, now stale: the step's policy redraws the current step, the slot stays.
      h.deliver(press(7, h.time, choices['19:00']!));
      const [outcome] = h.engine.processPending();
      expect(outcome?.reason).toMatch(/stale button/);
      expect(h.engine.sessions.get('u:7')?.context).toMatchObject({ vars: { slot: '18:30' } });
    } finally {
      await h.close();
    }
  });
});
