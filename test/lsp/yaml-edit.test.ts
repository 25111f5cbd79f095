/**
 * The step form's edits (src/lsp/yaml-edit.ts): golden texts, compared byte for byte. Only the touched values
 * change; comments, quoting, key order and blank lines of everything else survive.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { editStep, readStepForm, StepEditError } from '../../src/lsp/yaml-edit.ts';

const FLOW = `# A comment at the top: kept.
flow: demo
start: ask
steps:
  # The question, with a comment above it.
  ask:
    type: input
    say: "What is your name?"   # trailing comment
    save: name
    next: confirm

  confirm:
    type: menu
    say: 'Please check, {{name}}'
    keyboard:
      - - { id: ok, text: "✅ Confirm", goto: done }
      - - { text: Edit name, goto: ask }   # no id: found by its label
    on_text: { say: Use the buttons. }

  done:
    type: end
    say: Thanks!
`;

describe('editStep', () => {
  it('changes a quoted text in place, keeping its quotes and the comment after it', () => {
    expect(editStep(FLOW, 'ask', { say: 'Your name, please?' })).toBe(
      FLOW.replace('"What is your name?"', '"Your name, please?"'),
    );
  });

  it('keeps single quotes (doubling a quote inside) and plain scalars plain when they stay plain', () => {
    const edited = editStep(FLOW, 'confirm', { say: "Check it, {{name}}, it's yours" });
    expect(edited).toBe(FLOW.replace("'Please check, {{name}}'", "'Check it, {{name}}, it''s yours'"));
    expect(editStep(FLOW, 'done', { say: 'Thank you!' })).toBe(
      FLOW.replace('say: Thanks!', 'say: Thank you!'),
    );
    // A plain text that would read as YAML is quoted.
    expect(editStep(FLOW, 'done', { say: 'a: b' })).toBe(FLOW.replace('say: Thanks!', 'say: "a: b"'));
  });

  it('edits buttons found by id or by label, never by position, in their flow maps', () => {
    const edited = editStep(FLOW, 'confirm', {
      buttons: [
        { label: 'Edit name', text: 'Change name', goto: 'done' },
        { id: 'ok', label: '✅ Confirm', text: '✅ Yes' },
      ],
    });
    expect(edited).toBe(
      FLOW.replace('text: "✅ Confirm"', 'text: "✅ Yes"').replace(
        '{ text: Edit name, goto: ask }',
        '{ text: Change name, goto: done }',
      ),
    );
  });

  it('adds a missing field after the step’s last line, with its indentation', () => {
    const edited = editStep(FLOW, 'done', { next: 'ask' });
    expect(edited).toBe(FLOW.replace('    say: Thanks!\n', '    say: Thanks!\n    next: ask\n'));
    expect(editStep(FLOW, 'confirm', { question: 'Right?' })).toBe(
      FLOW.replace(
        'on_text: { say: Use the buttons. }\n',
        'on_text: { say: Use the buttons. }\n    question: Right?\n',
      ),
    );
  });

  it('fills an empty value in place', () => {
    const empty = FLOW.replace('    next: confirm\n', '    next:\n');
    expect(editStep(empty, 'ask', { next: 'confirm' })).toBe(FLOW);
  });

  it('changes nothing when the values are the same, and refuses what it cannot edit', () => {
    expect(editStep(FLOW, 'ask', { say: 'What is your name?', next: 'confirm' })).toBe(FLOW);
    expect(() => editStep(FLOW, 'nope', { say: 'x' })).toThrow(StepEditError);
    expect(() => editStep(FLOW, 'confirm', { buttons: [{ label: 'Missing', text: 'x' }] })).toThrow(
      /no button/,
    );
    expect(() => editStep(FLOW, 'ask', { next: '[broken' })).not.toThrow();
    expect(editStep(FLOW, 'ask', { next: '[broken' })).toContain('next: "[broken"');
  });
});

it('edits the example sign-up flow and leaves every other byte of it', () => {
  const text = readFileSync(new URL('../../flows/signup.flow.yaml', import.meta.url), 'utf8');
  const edited = editStep(text, 'ask_name', { say: 'Hello! Your <b>name</b>?' });
  expect(edited).toBe(text.replace('"Welcome! What is your <b>name</b>?"', '"Hello! Your <b>name</b>?"'));
  // ask_age's next is a list of conditions: edited in the file, not by the form.
  expect(() => editStep(text, 'ask_age', { next: 'done' })).toThrow(/not plain text/);
});

describe('readStepForm', () => {
  it('reads a step’s texts, buttons and next step', () => {
    expect(readStepForm(FLOW, 'confirm')).toEqual({
      say: 'Please check, {{name}}',
      buttons: [
        { id: 'ok', label: '✅ Confirm', goto: 'done' },
        { label: 'Edit name', goto: 'ask' },
      ],
    });
    expect(readStepForm(FLOW, 'ask')).toEqual({ say: 'What is your name?', next: 'confirm' });
    expect(readStepForm(FLOW, 'nope')).toBeUndefined();
  });
});
