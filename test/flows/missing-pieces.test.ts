/** The inputs and patterns designers asked for (issue 17): new input kinds, sub-flows, come_back, defaults. */
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { step } from '../../src/engine/step/step.ts';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry, type Registry } from '../../src/flows/registry.ts';
import { loadCatalog } from '../../src/flows/texts.ts';
import { Drive } from './drive.ts';

function compileAll(sources: Record<string, string>, registry: Registry = defineRegistry({})) {
  const r = compileSources(
    Object.entries(sources).map(([id, source]) => ({ file: `${id}.flow.yaml`, source })),
    registry,
    new Map(),
  );
  expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return r;
}
const compile = (source: string, registry?: Registry): FlowDefinition =>
  compileAll({ demo: source }, registry).flows.find((f) => f.id === 'demo')!;
const ask = (id: string, input: string, next: string, extra = '') => `
  ${id}:
    type: input
    say: ${id}?
    input: ${input}
    retries: { max: 3, exhausted: { goto: bye } }
    save: ${id}
    next: ${next}${extra}`;

describe('missing pieces', () => {
  it("8. starting a session runs the start step's entry actions once", () => {
    let calls = 0;
    const registry = defineRegistry({
      effects: {
        count: () => {
          calls++;
          return [];
        },
      },
    });
    const def = compile(
      `flow: demo\nstart: hi\nsteps:\n  hi: { type: menu, say: Hi, do: [{ effect: count }], keyboard: [[{ id: x, text: X, goto: bye }]] }\n  bye: { type: end }\n`,
      registry,
    );
    step(
      def,
      { revision: 0, stepInstance: 0 },
      {
        type: 'start',
        input: { trigger: { kind: 'bot_started' }, meta: { conversation: 'c', chatId: 1, now: 0 } },
      },
      { conversationKey: 'c', sign: (_i, p) => p },
    );
    expect(calls).toBe(1);
  });

  it('time of day, URL and choice ids that are not identifiers ("18:00" saved as itself)', () => {
    const d = new Drive(
      compile(`flow: demo
start: at
steps:${ask('at', 'time', 'site')}${ask('site', 'url', 'slot')}${ask(
        'slot',
        'choice',
        'bye',
        `
    options: [{ id: "18:00", text: "18:00" }, { id: "20:30", text: "20:30" }]`,
      )}
  bye: { type: end, say: "{{at}} {{site}} {{slot}}" }
`),
    );
    d.text('25:00');
    expect(d.said).toEqual(['Please send a time of day, like 18:30.']);
    d.text('9.05');
    expect(d.vars.at).toBe('09:05');
    d.text('not a url');
    expect(d.said).toEqual(['Please send a web address, like https://example.com.']);
    d.text('example.com/menu');
    expect(d.vars.site).toBe('https://example.com/menu');
    expect(d.keyboard).toEqual([[['18:00', '18:00']], [['20:30', '20:30']]]);
    // The engine splits `id:value` payloads: "18:00" comes back as button 18, value 00.
    d.send({
      type: 'button',
      button: '18',
      value: '00',
      callbackId: 'cb',
      message: { body: { mid: 'm', seq: 1 } },
    } as never);
    expect(d.said).toEqual(['09:05 https://example.com/menu 18:00']);
  });

  it('multi_choice: presses toggle marks on the same message; Done saves the list; typed ids work too', () => {
    const def = compile(`flow: demo
start: extras
steps:${ask(
      'extras',
      'multi_choice',
      'bye',
      `
    options: [{ id: wifi, text: Wi-Fi }, { id: parking, text: Parking }, { id: breakfast, text: Breakfast }]`,
    )}
  bye: { type: end, say: "{{extras}}" }
`);
    const d = new Drive(def);
    expect(d.keyboard).toEqual([
      [['Wi-Fi', 'wifi']],
      [['Parking', 'parking']],
      [['Breakfast', 'breakfast']],
      [['Done', '__done']],
    ]);
    d.press('__done');
    expect(d.said).toEqual(['Please pick with the buttons, then press “Done”.']);
    d.press('breakfast', 'mid.q');
    expect(d.effects).toMatchObject([{ kind: 'api', op: 'editMessage', args: { message_id: 'mid.q' } }]);
    expect(d.keyboard[2]).toEqual([['✓ Breakfast', 'breakfast']]);
    d.press('wifi', 'mid.q');
    d.press('breakfast', 'mid.q');
    d.press('parking', 'mid.q');
    d.press('__done');
    expect(d.vars.extras).toEqual(['wifi', 'parking']);
    const t = new Drive(def);
    t.text('Parking, breakfast');
    expect(t.vars.extras).toEqual(['parking', 'breakfast']);
  });

  it('sub-flows take parameters with `with:` and give back a value with `return:` into `save_as:`', () => {
    const r = compileAll({
      demo: `flow: demo
start: name
steps:${ask('name', 'text', 'addr')}
  addr:
    type: call
    flow: address
    with: { country: NL, who: "{{name}}" }
    save_as: home
    next: done
  done: { type: end, say: "{{name}} lives at {{home.street}}, {{home.country}}" }
  bye: { type: end }
`,
      address: `flow: address
start: street
steps:
  street:
    type: input
    say: "Street for {{who}} in {{country}}?"
    input: text
    retries: { max: 2, exhausted: { goto: over } }
    save: street
    next: over
  over: { type: end, return: [street, country] }
`,
    });
    const d = new Drive(r.flows.find((f) => f.id === 'demo')!);
    d.text('Ann');
    expect(d.said).toEqual(['Street for Ann in NL?']);
    d.text('Main St 1');
    expect(d.said).toEqual(['Ann lives at Main St 1, NL']);
    expect(d.vars.home).toEqual({ street: 'Main St 1', country: 'NL' });
  });

  it('check: save_as on a flow that returns nothing is an error', () => {
    const r = compileSources(
      [
        {
          file: 'demo.flow.yaml',
          source:
            'flow: demo\nstart: c\nsteps:\n  c: { type: call, flow: sub, save_as: x, next: e }\n  e: { type: end }\n',
        },
        { file: 'sub.flow.yaml', source: 'flow: sub\nstart: e\nsteps:\n  e: { type: end }\n' },
      ],
      defineRegistry({}),
      new Map(),
    );
    expect(r.problems.map((p) => p.message)).toContain('flow "sub" returns nothing for save_as');
  });

  it('come_back: a summary sends the person to change one answer and returns to the summary', () => {
    const d = new Drive(
      compile(`flow: demo
start: name
commands: { restart: { goto: name } }
steps:${ask('name', 'text', 'city')}${ask('city', 'text', 'summary')}
  summary:
    type: menu
    say: "{{name}} from {{city}}"
    keyboard:
      - [{ id: edit_name, text: Change name, goto: name, come_back: true }]
      - [{ id: ok, text: OK, goto: bye }]
  bye: { type: end, say: Booked }
`),
    );
    d.text('Ann');
    d.text('Oslo');
    expect(d.said).toEqual(['Ann from Oslo']);
    d.press('edit_name');
    expect(d.said).toEqual(['name?']);
    d.text('Bob');
    expect(d.step).toBe('summary');
    expect(d.said).toEqual(['Bob from Oslo']);
    // Going elsewhere mid-edit ends the edit: the restarted wizard goes on as written.
    d.press('edit_name');
    d.command('restart');
    expect(d.said).toEqual(['name?']);
    d.text('Cy');
    expect(d.step).toBe('city');
    d.text('Rome');
    d.press('ok');
    expect(d.said).toEqual(['Booked']);
  });

  it('flow defaults: a reminder and idle timeout for every input step, overridable per step', () => {
    const d = new Drive(
      compile(`flow: demo
start: a
defaults:
  remind: [{ after: 1h, say: Still there? }]
  idle: { after: 1d, goto: bye }
steps:${ask('a', 'text', 'b')}${ask(
        'b',
        'text',
        'bye',
        `
    remind: [{ after: 5m, say: Hurry }]`,
      )}
  bye: { type: end, say: Bye }
`),
    );
    expect(d.effects.filter((e) => e.kind === 'timer.arm')).toEqual([
      { kind: 'timer.arm', name: 'a:remind:0', delayMs: 3_600_000 },
      { kind: 'timer.arm', name: 'a:idle', delayMs: 86_400_000 },
    ]);
    d.timer('a:remind:0');
    expect(d.said).toEqual(['Still there?']);
    d.text('x');
    expect(d.effects.filter((e) => e.kind === 'timer.arm')).toEqual([
      { kind: 'timer.arm', name: 'b:remind:0', delayMs: 300_000 },
      { kind: 'timer.arm', name: 'b:idle', delayMs: 86_400_000 },
    ]);
    d.timer('b:idle');
    expect(d.said).toEqual(['Bye']);
  });

  it("Fluent DATETIME and NUMBER format saved dates and numbers for the person's locale", () => {
    const catalogs = new Map([
      [
        'en',
        loadCatalog(
          'en',
          'en.ftl',
          'ask = When?\nn = Guests?\nok = { DATETIME($day, dateStyle: "long") } ({ $day }), { NUMBER($total, minimumFractionDigits: 2) }\n',
        ),
      ],
      [
        'ru',
        loadCatalog(
          'ru',
          'ru.ftl',
          'ask = Когда?\nn = Гостей?\nok = { DATETIME($day, dateStyle: "long") } ({ $day }), { NUMBER($total, minimumFractionDigits: 2) }\n',
        ),
      ],
    ]);
    const r = compileSources(
      [
        {
          file: 'demo.flow.yaml',
          source: `flow: demo
start: day
i18n: { default_locale: en }
steps:
  day: { type: input, say: ask, input: date, save: day, retries: { max: 2, exhausted: { goto: ok } }, next: total }
  total: { type: input, say: n, input: number, save: total, retries: { max: 2, exhausted: { goto: ok } }, next: ok }
  ok: { type: end, say: ok }
`,
        },
      ],
      defineRegistry({}),
      catalogs,
    );
    expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
    for (const [locale, said] of [
      ['en', 'March 31, 2026 (2026-03-31), 1,234.50'],
      ['ru', '31 марта 2026 г. (2026-03-31), 1 234,50'],
    ] as const) {
      const d = new Drive(r.flows[0]!, { locale });
      d.text('31.03.2026');
      d.text('1234.5');
      expect(d.said.map((x) => x.replace(/\u00a0|\u202f/g, ' '))).toEqual([said]);
    }
  });
});
