/** Flow files that do what the designer meant (issue 17): chats that used to go wrong, and new inputs. */
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry, type Registry } from '../../src/flows/registry.ts';
import { relativeDate } from '../../src/flows/relative-dates.ts';
import { loadCatalog } from '../../src/flows/texts.ts';
import { Drive } from './drive.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 2, 15, 12); // 2026-03-15

function compileAll(
  sources: Record<string, string>,
  registry: Registry = defineRegistry({}),
  catalogs = new Map(),
) {
  return compileSources(
    Object.entries(sources).map(([id, source]) => ({ file: `${id}.flow.yaml`, source })),
    registry,
    catalogs,
  );
}
function compile(source: string, registry?: Registry, catalogs?: Map<string, never>): FlowDefinition {
  const r = compileAll({ demo: source }, registry, catalogs);
  expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return r.flows.find((f) => f.id === 'demo')!;
}
const problemsOf = (sources: Record<string, string>, registry?: Registry, catalogs?: Map<string, never>) =>
  compileAll(sources, registry, catalogs).problems.map((p) => `${p.severity}: ${p.message}`);
const at = (now: number) => ({ conversation: 'c1', chatId: 1, userId: 7, now });

const ASK = (id: string, input: string, next: string, extra = '') => `
  ${id}:
    type: input
    say: ${id}?
    input: ${input}
    retries: { max: 3, exhausted: { goto: bye } }
    save: ${id}
    next: ${next}${extra}`;

describe('chats that used to go wrong', () => {
  it('1. render: edit edits the message whose button was pressed; after a typed answer it sends a new one', () => {
    const d = new Drive(
      compile(`flow: demo
start: name
steps:${ASK('name', 'text', 'menu')}
  menu:
    type: menu
    render: edit
    say: "Hi {{name}}"
    keyboard: [[{ id: more, text: More, goto: more }]]
  more:
    type: menu
    render: edit
    say: More
    keyboard: [[{ id: back, text: Back, goto: menu }]]
  bye: { type: end }
`),
    );
    d.send({ type: 'effect.done', ref: 'render', result: { message: { body: { mid: 'mid.q' } } } } as never);
    d.text('Ann');
    expect(d.effects.map((e) => (e.kind === 'api' ? e.op : e.kind))).toEqual(['sendMessage']);
    d.send({
      type: 'effect.done',
      ref: 'render',
      result: { message: { body: { mid: 'mid.menu' } } },
    } as never);
    d.press('more', 'mid.menu');
    expect(d.effects).toMatchObject([{ kind: 'api', op: 'editMessage', args: { message_id: 'mid.menu' } }]);
  });

  it('1. check warns when render: edit follows a typed answer', () => {
    expect(
      problemsOf({
        demo: `flow: demo
start: name
steps:${ASK('name', 'text', 'done')}
  done: { type: message, render: edit, say: Thanks, next: bye }
  bye: { type: end }
`,
      }),
    ).toContain(
      'warning: step "done" follows a typed answer: render: edit sends a new message there (only a pressed button\'s message is edited)',
    );
  });

  it("2. another flow's command is refused with how to leave, uses no retry and never cancels the wizard", () => {
    const d = new Drive(
      compile(`flow: demo
title: Booking
start: guests
commands: { cancel: { goto: bye } }
steps:${ASK('guests', 'integer', 'bye')}
  bye: { type: end, say: "{{guests}} guests" }
`),
    );
    for (let i = 0; i < 5; i++) {
      d.command('support');
      expect(d.said).toEqual([
        'You are in the middle of “Booking”. Answer the question above, or send /cancel to leave it.',
      ]);
      expect(d.step).toBe('guests');
    }
    expect((d.snapshot.context as { retries: number }).retries).toBe(0);
    d.text('4');
    expect(d.said).toEqual(['4 guests']);
  });

  it('2. a flow without commands still refuses, and says to answer first; texts: overrides the refusal', () => {
    const d = new Drive(
      compile(`flow: demo\nstart: q\nsteps:${ASK('q', 'text', 'bye')}\n  bye: { type: end }\n`),
    );
    d.command('settings');
    expect(d.said).toEqual(['You are in the middle of “demo”. Please answer the question above first.']);
    const o = new Drive(
      compile(
        `flow: demo\nstart: q\ntexts: { command-refused-stuck: "Finish {{q}} first" }\nsteps:${ASK('q', 'text', 'bye')}\n  bye: { type: end }\n`,
      ),
    );
    o.command('settings');
    expect(o.said).toEqual(['Finish  first']);
  });

  it('3. integer input refuses 2,5; regex and length rules test the typed text; range on numbers', () => {
    const d = new Drive(
      compile(`flow: demo
start: guests
steps:${ASK(
        'guests',
        'integer',
        'code',
        `
    validate: [{ rule: range, min: 1, max: 8 }]`,
      )}${ASK(
        'code',
        'number',
        'bye',
        `
    validate: [{ rule: regex, pattern: "^\\\\d{4}$", error: Four digits }, { rule: length, max: 4 }]`,
      )}
  bye: { type: end }
`),
    );
    d.text('2,5');
    expect(d.said).toEqual(['Please send a whole number, like 3.']);
    d.text('9');
    expect(d.said).toEqual(['Please send a value from 1 to 8.']);
    d.text('3');
    expect(d.vars.guests).toBe(3);
    d.text('12');
    expect(d.said).toEqual(['Four digits']);
    d.text('0042');
    expect(d.vars.code).toBe(42);
  });

  it('3. check refuses rule/kind combinations that cannot pass', () => {
    const out = problemsOf({
      demo: `flow: demo
start: a
steps:${ASK(
        'a',
        'contact',
        'b',
        `
    validate: [{ rule: regex, pattern: x }]`,
      )}${ASK(
        'b',
        'number',
        'c',
        `
    validate: [{ rule: range, min: "1" }]`,
      )}${ASK(
        'c',
        'photo',
        'bye',
        `
    validate: [{ rule: integer }]`,
      )}
  bye: { type: end }
`,
    });
    expect(out).toEqual(
      expect.arrayContaining([
        'error: rule regex can never pass for input contact',
        'error: range bound "1" is text, but the answer is a number: no answer can pass',
        'error: rule integer can never pass for input photo',
      ]),
    );
  });

  it("4. built-in texts speak the person's locale (en, ru); a flow catalog overrides them; check reports a locale without them", () => {
    const catalogs = new Map([
      ['en', loadCatalog('en', 'en.ftl', 'ask = How many?\nbye = Bye\n')],
      ['ru', loadCatalog('ru', 'ru.ftl', 'ask = Сколько?\nbye = Пока\n')],
      [
        'de',
        loadCatalog(
          'de',
          'de.ftl',
          'ask = Wie viele?\nbye = Tschüss\nbotflow-error-integer = Bitte eine ganze Zahl.\n',
        ),
      ],
      ['fr', loadCatalog('fr', 'fr.ftl', 'ask = Combien ?\nbye = Au revoir\n')],
    ]) as Map<string, never>;
    const source = `flow: demo
start: n
i18n: { default_locale: en }
steps:
  n:
    type: input
    say: ask
    input: integer
    retries: { max: 3, exhausted: { goto: bye } }
    next: bye
  bye: { type: end, say: bye }
`;
    const def = compile(source, undefined, catalogs);
    const ru = new Drive(def, { locale: 'ru-RU' });
    ru.text('много');
    expect(ru.said).toEqual(['Пожалуйста, отправьте целое число, например 3.']);
    const de = new Drive(def, { locale: 'de' });
    de.text('viele');
    expect(de.said).toEqual(['Bitte eine ganze Zahl.']);
    expect(problemsOf({ demo: source }, undefined, catalogs)).toContain(
      'warning: botflow has no built-in texts for locale "fr": its people would see English error messages',
    );
  });

  it('5. a typo in a Fluent variable is reported with a guess', () => {
    const catalogs = new Map([
      ['en', loadCatalog('en', 'en.ftl', 'ask = Name?\nbye = Bye, { $nmae }!\n')],
    ]) as Map<string, never>;
    const out = problemsOf(
      {
        demo: `flow: demo
start: name
i18n: { default_locale: en }
steps:
  name: { type: input, say: ask, input: text, save: name, retries: { max: 2, exhausted: { goto: bye } }, next: bye }
  bye: { type: end, say: bye }
`,
      },
      undefined,
      catalogs,
    );
    expect(out).toContain('warning: unknown variable $nmae in message "bye" (used by demo.flow.yaml)');
  });

  it("6. validators and guards get the engine's now; relative date bounds resolve on it", () => {
    const seen: number[] = [];
    const registry = defineRegistry({
      validators: {
        future: (v, { now }) => {
          seen.push(now);
          return String(v) >= relativeDate('today', now)! || 'past';
        },
      },
      guards: { soon: ({ vars, now }) => String(vars.day) <= relativeDate('+7d', now)! },
    });
    const def = compile(
      `flow: demo
start: day
steps:${ASK(
        'day',
        'date',
        '',
        `
    validate: [{ rule: future }, { rule: range, max: +30d, error: "Within a month" }]`,
      ).replace('next: ', 'next: [{ when: { guard: soon }, goto: soon }, { goto: later }]')}
  soon: { type: end, say: Soon }
  later: { type: end, say: Later }
  bye: { type: end }
`,
      registry,
    );
    const d = new Drive(def);
    d.send({
      type: 'message',
      text: '2026-03-14',
      attachments: [],
      message: { body: { mid: 'm', seq: 1 } },
      meta: at(NOW),
    } as never);
    expect(d.said).toEqual(['past']);
    expect(seen).toEqual([NOW]);
    d.send({
      type: 'message',
      text: '2026-04-20',
      attachments: [],
      message: { body: { mid: 'm', seq: 1 } },
      meta: at(NOW),
    } as never);
    expect(d.said).toEqual(['Within a month']);
    d.send({
      type: 'message',
      text: 'tomorrow',
      attachments: [],
      message: { body: { mid: 'm', seq: 1 } },
      meta: at(NOW),
    } as never);
    expect(d.vars.day).toBe('2026-03-16');
    expect(d.said).toEqual(['Soon']);
    expect(relativeDate('+1m', NOW)).toBe('2026-04-15');
    expect(relativeDate('-1d', NOW + DAY)).toBe('2026-03-15');
  });
});

describe('texts: overrides are checked like every text', () => {
  it("an i18n flow's texts: override names a message id that must exist in every locale", () => {
    const catalogs = new Map([['en', loadCatalog('en', 'en.ftl', 'ask = Name?\n')]]) as Map<string, never>;
    const out = problemsOf(
      {
        demo: `flow: demo
start: name
i18n: { default_locale: en }
texts: { error-text: my-error }
steps:
  name: { type: input, say: ask, input: text, retries: { max: 2, exhausted: { goto: bye } }, next: bye }
  bye: { type: end }
`,
      },
      undefined,
      catalogs,
    );
    expect(out).toContain('error: message "my-error" is missing in locale en');
  });
});

describe('interruption policies written as commands', () => {
  it('suspend and resume: a command that calls the other flow comes back to the open question', () => {
    const r = compileAll({
      demo: `flow: demo
start: guests
commands: { support: { call: support }, cancel: { goto: bye } }
steps:${ASK('guests', 'integer', 'bye')}
  bye: { type: end, say: "{{guests}} guests" }
`,
      support: `flow: support
start: what
triggers: [{ command: support }]
steps:
  what: { type: input, say: "What is wrong?", input: text, save: problem, retries: { max: 2, exhausted: { goto: over } }, next: over }
  over: { type: end, say: "Noted: {{problem}}" }
`,
    });
    expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const d = new Drive(r.flows.find((f) => f.id === 'demo')!);
    d.command('support');
    expect(d.said).toEqual(['What is wrong?']);
    d.text('the app is slow');
    expect(d.said).toEqual(['Noted: the app is slow', 'guests?']);
    d.text('3');
    expect(d.said).toEqual(['3 guests']);
  });
});
