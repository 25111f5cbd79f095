/** The language service on the repository's example project (flows/): completion, hover, definition, outline. */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CompletionItem, Hover } from 'vscode-languageserver-types';
import { createLanguageService, type ProjectSnapshot } from '../../src/lsp/language-service.ts';
import { edited, exampleProject, FLOWS, positionOf, textAt } from './project.ts';

const SIGNUP = join(FLOWS, 'signup.flow.yaml');
const BOOKING = join(FLOWS, 'booking.flow.yaml');
const SIGNUP_TESTS = join(FLOWS, 'tests', 'signup.test.yaml');

let project: ProjectSnapshot;
const textOf = (file: string) =>
  [...project.flows, ...project.transcripts].find((f) => f.file === file)!.text;
const labels = (items: CompletionItem[]) => items.map((i) => i.label);
const doc = (i: CompletionItem | undefined) =>
  (i?.documentation as { value: string } | undefined)?.value ?? '';
const shown = (h: Hover | null) => (h?.contents as { value: string } | undefined)?.value ?? '';

beforeAll(async () => {
  project = await exampleProject();
});

/** Completion in `file` after replacing `from` with `to`, at the end of `to` (or `shift` characters into it). */
function completeAfter(file: string, from: string, to: string, shift = to.length) {
  const text = textOf(file).replace(from, to);
  return createLanguageService().completion(edited(project, file, text), file, positionOf(text, to, shift));
}

describe('completion', () => {
  it('offers the flow step ids after goto:, with their kinds', () => {
    const items = completeAfter(SIGNUP, 'goto: cancelled }\n  help', 'goto:  }\n  help', 6);
    expect(labels(items)).toEqual([
      'ask_name',
      'ask_age',
      'ask_email',
      'confirm',
      'minor',
      'done',
      'cancelled',
      'abandoned',
    ]);
    expect(items.find((i) => i.label === 'confirm')!.detail).toBe('menu');
    expect(doc(items.find((i) => i.label === 'ask_age'))).toContain('How old are you?');
  });

  it('offers variables inside {{ with their types and where they are set', () => {
    const items = completeAfter(SIGNUP, 'Thanks, {{name}}!', 'Thanks, {{na', 12);
    const name = items.find((i) => i.label === 'name')!;
    expect(name.detail).toBe('name: a text');
    expect(doc(name)).toContain('set in `ask_name`');
    expect(items.find((i) => i.label === 'age')!.detail).toBe('age: a number');
    // The flow's own variables sort before botflow's.
    expect(name.sortText! < items.find((i) => i.label === 'locale')!.sortText!).toBe(true);
    expect(name.textEdit).toMatchObject({ newText: 'name' });
  });

  it('offers message ids with their text in a flow with i18n, and none in a flow without', () => {
    const items = completeAfter(BOOKING, 'say: booking-ask-guests', 'say: booking-ask');
    const guests = items.find((i) => i.label === 'booking-ask-guests')!;
    expect(doc(guests)).toContain('**en**: For how many people?');
    expect(doc(guests)).toContain('**ru**: На сколько человек?');
    expect(completeAfter(SIGNUP, 'say: "Your email address?"', 'say: ')).toEqual([]);
  });

  it("offers the registry's tasks with their input and result schemas", () => {
    const items = completeAfter(BOOKING, 'task: find_slots', 'task: ');
    expect(labels(items).sort()).toEqual(['find_slots', 'save_booking']);
    expect(doc(items.find((i) => i.label === 'find_slots'))).toMatch(/input:\n```json[\s\S]*"guests"/);
  });

  it("offers a step's fields from its kind's schema, and the kinds after type:", () => {
    const items = completeAfter(SIGNUP, '    input: email\n', '    input: email\n    re\n', 23);
    const retries = items.find((i) => i.label === 'remind')!;
    // Keys the step already has are not offered again.
    expect(labels(items)).toEqual(expect.arrayContaining(['remind', 'keyboard', 'idle']));
    expect(labels(items)).not.toContain('save');
    expect(labels(items)).not.toContain('input');
    expect(labels(items)).not.toContain('keyboard_from');
    expect(doc(retries)).toContain('Reminders');
    const kinds = completeAfter(SIGNUP, 'type: end\n    say: "Sorry', 'type: \n    say: "Sorry', 6);
    expect(labels(kinds)).toEqual(
      expect.arrayContaining(['message', 'input', 'menu', 'end', 'handoff', 'rating']),
    );
  });

  it("offers the keys of a nested mapping: a step field's, the flow's defaults", () => {
    const retries = completeAfter(
      SIGNUP,
      '    retries: { max: 3, exhausted: { goto: cancelled } }\n    save: email',
      '    retries:\n      ma\n    save: email',
      20,
    );
    expect(labels(retries).sort()).toEqual(['exhausted', 'max']);
    const defaults = completeAfter(SIGNUP, 'defaults:\n', 'defaults:\n  \n', 12);
    expect(labels(defaults)).toEqual(expect.arrayContaining(['remind', 'idle', 'render']));
    expect(labels(defaults)).not.toContain('on_stale');
  });

  it('offers the flows after call:', () => {
    const items = completeAfter(SIGNUP, 'help: { call: help }', 'help: { call:  }', 14);
    expect(labels(items)).toEqual(expect.arrayContaining(['help', 'signup', 'booking']));
  });

  it("in a transcript: the flow's button labels after press:, its step ids after step:", () => {
    const presses = completeAfter(
      SIGNUP_TESTS,
      '  - press: "✅ Confirm"\n    bot:\n      - answer: silent\n',
      '  - press: Ed\n    bot:\n      - answer: silent\n',
      13,
    );
    expect(labels(presses)).toEqual(
      expect.arrayContaining(['✅ Confirm', 'Edit name', 'Edit age', 'Edit email']),
    );
    // The keyboard the bot sent last comes first.
    expect(presses.find((i) => i.label === 'Edit age')!.sortText!.startsWith('0')).toBe(true);
    const steps = completeAfter(SIGNUP_TESTS, 'start_at: { step: ask_email,', 'start_at: { step: ask,', 21);
    expect(labels(steps)).toContain('ask_email');
  });
});

describe('hover', () => {
  it("shows a field's documentation from its kind's schema", () => {
    const h = createLanguageService().hover(project, SIGNUP, positionOf(textOf(SIGNUP), 'save: name', 1));
    expect(shown(h)).toBe('**save** (an input step)\n\nContext variable that receives the answer');
  });

  it("shows a message id's text in every locale, a variable's type and setters, a task's schemas", () => {
    const s = createLanguageService();
    const booking = textOf(BOOKING);
    expect(shown(s.hover(project, BOOKING, positionOf(booking, 'booking-ask-guests', 3)))).toBe(
      '**en**: For how many people?\n\n**ru**: На сколько человек?',
    );
    expect(shown(s.hover(project, SIGNUP, positionOf(textOf(SIGNUP), '{{age}}', 3)))).toBe(
      '**age**: a number\n\nset in `ask_age`',
    );
    expect(shown(s.hover(project, BOOKING, positionOf(booking, 'task: save_booking', 8)))).toMatch(
      /task save_booking[\s\S]*result:/,
    );
  });

  it("shows a nested field's documentation: a button's come_back", () => {
    const h = createLanguageService().hover(
      project,
      SIGNUP,
      positionOf(textOf(SIGNUP), 'come_back: true', 2),
    );
    expect(shown(h)).toMatch(/^\*\*come_back\*\* \(keyboard of a menu step\)\n\n\S/);
  });

  it("shows a step's kind and text where it is named", () => {
    const h = createLanguageService().hover(
      project,
      SIGNUP,
      positionOf(textOf(SIGNUP), '{ goto: ask_email }', 10),
    );
    expect(shown(h)).toBe('**ask_email** (input) in flow `signup`\n\n> Your email address?');
  });
});

describe('definition', () => {
  it('goes from a goto to its step, from a call to its flow', () => {
    const s = createLanguageService();
    const [step] = s.definition(project, SIGNUP, positionOf(textOf(SIGNUP), 'goto: ask_email', 7));
    expect(step!.uri).toMatch(/signup\.flow\.yaml$/);
    expect(step!.range.start).toEqual(positionOf(textOf(SIGNUP), '  ask_email:\n', 2));
    const [flow] = s.definition(project, SIGNUP, positionOf(textOf(SIGNUP), 'call: help', 7));
    expect(flow!.uri).toMatch(/help\.flow\.yaml$/);
    expect(textAt(project, flow!)).toBe('help');
  });

  it('goes from a message id to its line in each catalog, and from a task to the code', () => {
    const s = createLanguageService();
    const at = positionOf(textOf(BOOKING), 'booking-ask-guests', 3);
    const found = s.definition(project, BOOKING, at);
    expect(found.map((l) => l.uri.split('/').pop())).toEqual(['en.ftl', 'ru.ftl']);
    expect(found.map((l) => textAt(project, l))).toEqual(['booking-ask-guests', 'booking-ask-guests']);
    const [task] = s.definition(project, BOOKING, positionOf(textOf(BOOKING), 'task: find_slots', 8));
    expect(task!.uri).toMatch(/flows\/code\/booking\.ts$/);
    expect(textAt(project, task!)).toBe('find_slots');
  });
});

describe('transcripts', () => {
  it('goes from a pressed label to the button in the flow, and says which step offers it', () => {
    const s = createLanguageService();
    const at = positionOf(textOf(SIGNUP_TESTS), 'press: Edit age', 9);
    const [button] = s.definition(project, SIGNUP_TESTS, at);
    expect(button!.uri).toMatch(/signup\.flow\.yaml$/);
    expect(textAt(project, button!)).toBe('"Edit age"');
    expect(shown(s.hover(project, SIGNUP_TESTS, at))).toBe('a button of `confirm` in flow `signup`');
    const [flow] = s.definition(project, SIGNUP_TESTS, positionOf(textOf(SIGNUP_TESTS), 'flow: signup', 7));
    expect(textAt(project, flow!)).toBe('signup');
  });
});

describe('outline', () => {
  it('lists a flow and its steps with their kinds, a transcript and its turns, a catalog and its messages', () => {
    const s = createLanguageService();
    const [flow] = s.documentSymbols(project, SIGNUP);
    expect(flow!.name).toBe('signup');
    expect(flow!.children!.map((c) => `${c.name}:${c.detail}`).slice(0, 4)).toEqual([
      'ask_name:input',
      'ask_age:input',
      'ask_email:input',
      'confirm:menu',
    ]);
    const transcripts = s.documentSymbols(project, SIGNUP_TESTS);
    expect(transcripts[0]!.name).toBe('happy path');
    expect(transcripts[0]!.children!.map((c) => c.name).slice(0, 2)).toEqual(['start: true', 'say: Ann']);
    const catalog = s.documentSymbols(project, join(FLOWS, 'locales', 'en.ftl'));
    expect(catalog.find((c) => c.name === 'booking-ask-guests')!.detail).toBe('For how many people?');
  });
});
