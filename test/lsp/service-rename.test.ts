/**
 * The language service's references and rename on the example project: a step across its flow and its
 * transcripts, a variable across its sets and reads; the renamed project parses and `botflow check` finds
 * nothing new.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseFlowSource } from '../../src/flows/yaml-source.ts';
import { createLanguageService, type ProjectSnapshot } from '../../src/lsp/language-service.ts';
import { applyEdit, checkProblems, exampleProject, FLOWS, positionOf, textAt } from './project.ts';

const SIGNUP = join(FLOWS, 'signup.flow.yaml');
const SIGNUP_TESTS = join(FLOWS, 'tests', 'signup.test.yaml');

let project: ProjectSnapshot;
const textOf = (p: ProjectSnapshot, file: string) =>
  [...p.flows, ...p.transcripts].find((f) => f.file === file)!.text;
const where = (locs: { uri: string; range: { start: { line: number } } }[]) =>
  locs.map((l) => `${l.uri.split('/').pop()}:${l.range.start.line + 1}`);

beforeAll(async () => {
  project = await exampleProject();
});

describe('references', () => {
  it("finds a step's definition, its gotos and the transcripts that start at it", () => {
    const s = createLanguageService();
    const at = positionOf(textOf(project, SIGNUP), '  ask_email:\n', 3);
    const refs = s.references(project, SIGNUP, at, true);
    expect(where(refs)).toEqual([
      'signup.flow.yaml:46',
      'signup.flow.yaml:48',
      'signup.flow.yaml:65',
      'signup.test.yaml:116',
    ]);
    expect(refs.every((r) => textAt(project, r) === 'ask_email')).toBe(true);
    expect(where(s.references(project, SIGNUP, at, false))).not.toContain('signup.flow.yaml:48');
  });

  it("finds a variable's sets and reads, and a message id's uses and entries", () => {
    const s = createLanguageService();
    const refs = s.references(project, SIGNUP, positionOf(textOf(project, SIGNUP), 'save: age', 7), true);
    expect(refs.map((r) => textAt(project, r))).toEqual(Array(refs.length).fill('age'));
    // save: age, the condition's var: age, {{age}} in the summary, start_at contexts of the transcripts.
    expect(where(refs).filter((w) => w.startsWith('signup.flow'))).toEqual([
      'signup.flow.yaml:41',
      'signup.flow.yaml:45',
      'signup.flow.yaml:60',
    ]);
    expect(where(refs).some((w) => w.startsWith('signup.test.yaml'))).toBe(true);
    const booking = join(FLOWS, 'booking.flow.yaml');
    const text = textOf(project, booking);
    const msg = s.references(project, booking, positionOf(text, 'booking-ask-guests', 2), true);
    expect(where(msg).map((w) => w.split(':')[0])).toEqual(['booking.flow.yaml', 'en.ftl', 'ru.ftl']);
  });
});

describe('rename', () => {
  it('renames a step across its flow and its transcript; the result parses and check finds nothing new', () => {
    const s = createLanguageService();
    const at = positionOf(textOf(project, SIGNUP), 'goto: ask_email', 8);
    expect(s.prepareRename(project, SIGNUP, at)).toMatchObject({ placeholder: 'ask_email' });
    const edit = s.rename(project, SIGNUP, at, 'ask_mail')!;
    expect(Object.keys(edit.changes!).map((u) => u.split('/').pop())).toEqual([
      'signup.flow.yaml',
      'signup.test.yaml',
    ]);
    const renamed = applyEdit(project, edit);
    const flow = textOf(renamed, SIGNUP);
    expect(flow).not.toContain('ask_email');
    expect(flow).toContain('  ask_mail:\n    type: input\n    say: "Your email address?"');
    expect(textOf(renamed, SIGNUP_TESTS)).toContain(
      'start_at: { step: ask_mail, context: { name: Ann, age: 30 } }',
    );
    expect(parseFlowSource(flow, SIGNUP).problems).toEqual([]);
    expect(checkProblems(renamed)).toEqual(checkProblems(project));
  });

  it('renames a variable across its sets and reads; check finds nothing new', () => {
    const s = createLanguageService();
    const edit = s.rename(project, SIGNUP, positionOf(textOf(project, SIGNUP), '{{email}}', 3), 'mail')!;
    const renamed = applyEdit(project, edit);
    const flow = textOf(renamed, SIGNUP);
    expect(flow).toContain('save: mail');
    expect(flow).toContain('Email: {{mail}}');
    expect(flow).not.toMatch(/\{\{email\}\}|save: email/);
    expect(checkProblems(renamed)).toEqual(checkProblems(project));
  });

  it('refuses a name that is taken or is no id', () => {
    const s = createLanguageService();
    const at = positionOf(textOf(project, SIGNUP), 'goto: ask_email', 8);
    expect(s.rename(project, SIGNUP, at, 'confirm')).toBeNull();
    expect(s.rename(project, SIGNUP, at, '2nd step')).toBeNull();
    const age = positionOf(textOf(project, SIGNUP), 'save: age', 7);
    expect(s.rename(project, SIGNUP, age, 'name')).toBeNull();
    expect(s.prepareRename(project, SIGNUP, positionOf(textOf(project, SIGNUP), 'type: menu', 7))).toBeNull();
  });
});
