/**
 * Transcripts as authors meet them: problems in the file point at file:line:col with what to write,
 * failing turns show expected and actual side by side with the step that produced the call, and virtual
 * time fires reminders in order.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileFlow } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { loadFlowsOrThrow } from '../../src/testing/flows.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { textMatches } from '../../src/testing/match.ts';
import { runTranscript } from '../../src/testing/run.ts';

let flows: FlowDefinition[];
beforeAll(async () => {
  flows = await loadFlowsOrThrow('flows');
});

const one = (yaml: string) => {
  const r = parseTranscripts(yaml, 'x.test.yaml');
  expect(r.problems.map(formatProblem)).toEqual([]);
  return r.transcripts[0]!;
};
const run = (yaml: string) => runTranscript(one(yaml), { flows });

describe('transcript files', () => {
  it('reports an unknown key with its place and the closest key', () => {
    const r = parseTranscripts(
      'flow: signup\nname: n\nturns:\n  - say: hi\n    bto: nothing\n',
      'a.test.yaml',
    );
    expect(r.problems.map(formatProblem)).toEqual([
      'a.test.yaml:5:5: error: unknown key "bto"\n    hint: did you mean "bot"?',
    ]);
  });

  it('requires every turn to say what the bot must do, and durations to be durations', () => {
    const missing = parseTranscripts('flow: f\nname: n\nturns:\n  - say: hi\n', 'b.test.yaml');
    expect(missing.problems[0]).toMatchObject({
      line: 4,
      message: 'the turn does not say what the bot must do',
    });
    const wait = parseTranscripts(
      'flow: f\nname: n\nturns:\n  - wait: soon\n    bot: nothing\n',
      'c.test.yaml',
    );
    expect(wait.problems[0]).toMatchObject({ line: 4, col: 11, message: 'wait "soon" is not a duration' });
    expect(wait.problems[0]!.hint).toContain('2h');
    // A bare text where an expectation goes: the hint writes it out.
    const bare = parseTranscripts('flow: f\nname: n\nturns:\n  - say: hi\n    bot: Hello!\n', 'd.test.yaml');
    expect(bare.problems.map(formatProblem)).toEqual([
      'd.test.yaml:5:10: error: an expectation says what the bot does, not only a text\n    hint: write { send: "Hello!" }',
    ]);
  });

  it('send: ~ (YAML null) says to quote it, at its place', () => {
    const r = parseTranscripts(
      'flow: f\nname: n\nturns:\n  - say: hi\n    bot: { send: ~ }\n  - say: again\n    bot:\n      - edit: ~\n',
      'e.test.yaml',
    );
    expect(r.problems.map(formatProblem)).toEqual([
      'e.test.yaml:5:18: error: send has no text: YAML reads a bare ~ (or nothing) as null\n' +
        '    hint: quote it: send: "~" matches any text, send: "~part" a text that contains part',
      'e.test.yaml:8:15: error: edit has no text: YAML reads a bare ~ (or nothing) as null\n' +
        '    hint: quote it: edit: "~" matches any text, edit: "~part" a text that contains part',
    ]);
    const quoted = parseTranscripts(
      'flow: f\nname: n\nturns:\n  - say: hi\n    bot: { send: "~" }\n',
      'f.test.yaml',
    );
    expect(quoted.problems).toEqual([]);
    expect(textMatches('~', 'Anything at all')).toBe(true);
  });

  it('reads several transcripts from one file, each with its own line', () => {
    const r = parseTranscripts(
      'flow: a\nname: one\nturns: [{ say: x, bot: nothing }]\n---\nflow: b\nname: two\nturns: [{ stop: true, bot: nothing }]\n',
      'd.test.yaml',
    );
    expect(r.transcripts.map((t) => [t.flow, t.name, t.line])).toEqual([
      ['a', 'one', 1],
      ['b', 'two', 5],
    ]);
  });

  it('matches texts exactly, by part (~) or by regular expression', () => {
    expect(textMatches('Hello', 'Hello')).toBe(true);
    expect(textMatches('Hello', 'Hello!')).toBe(false);
    expect(textMatches('~ell', 'Hello!')).toBe(true);
    expect(textMatches('/^h.l+o/i', 'Hello')).toBe(true);
  });
});

describe('running transcripts', () => {
  it('a wrong expectation fails its turn with both sides and the step that produced the call', async () => {
    const result = await run(`flow: signup
name: wrong text
turns:
  - start: true
    bot: { send: ~What is your }
  - say: Ann
    bot: { send: "How old are you?" }
`);
    expect(result.passed).toBe(false);
    expect(result.failure?.turn).toBe(2);
    const report = result.failure!.report;
    expect(report).toContain('x.test.yaml:6: signup › wrong text, turn 2: say "Ann"');
    expect(report).toMatch(/✗ send "How old are you\?" +│ send "Nice to meet you, Ann. How old are you\?"/);
    expect(report).toContain('from signup › ask_age; text differs');
  });

  it('an extra call the transcript does not list fails the turn', async () => {
    const result = await run(`flow: signup
name: missing answer
turns:
  - start: true
    bot: { send: ~What is your }
  - say: A
    bot: nothing
`);
    expect(result.failure?.report).toContain('unexpected: the transcript does not list this');
    expect(result.failure?.report).toContain('A name is 2 to 64 characters long.');
  });

  it('pressing a button nobody sees names the buttons that are there', async () => {
    const result = await run(`flow: settings
name: no such button
turns:
  - say: /settings
    bot: { send: Settings }
  - press: Languages
    bot: nothing
`);
    expect(result.failure?.report).toContain('press "Languages" (latest): no such button in the chat');
    expect(result.failure?.report).toContain('"Language", "Notifications", "Close"');
  });

  it('waiting a day fires the hour reminder before the day-long idle timeout, in order', async () => {
    const result = await run(`flow: signup
name: one long wait
turns:
  - start: true
    bot: { send: ~What is your }
  - wait: 1d
    bot:
      - send: ~Still there?
      - send: ~put your sign-up aside
`);
    expect(result.failure?.report).toBeUndefined();
    expect(result.passed).toBe(true);
  });

  it('start_at with a step the flow does not have says which steps exist', async () => {
    const result = await run(`flow: signup
name: bad start
start_at: { step: ask_phone }
turns:
  - say: hi
    bot: nothing
`);
    expect(result.failure?.report).toContain('start_at: flow "signup" has no step "ask_phone"');
    expect(result.failure?.report).toContain('ask_email');
  });

  it('an uploaded file is matched as an upload with its message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-upload-'));
    const path = join(dir, 'report.txt');
    writeFileSync(path, 'numbers');
    const source = `flow: report
start: send
triggers: [{ command: report }]
steps:
  send: { type: message, say: "Your report", media: { file: ${JSON.stringify(path)} }, next: bye }
  bye: { type: end }
`;
    const compiled = compileFlow(source, 'report.flow.yaml');
    expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const t = one(`flow: report
name: upload
turns:
  - say: /report
    bot: { upload: { type: file, text: Your report } }
`);
    const result = await runTranscript(t, { flows: [compiled.flow!] });
    expect(result.failure?.report).toBeUndefined();
    const wrong = await runTranscript(
      { ...t, turns: [{ ...t.turns[0]!, bot: [{ kind: 'upload', type: 'image', message: {} }] }] },
      { flows: [compiled.flow!] },
    );
    expect(wrong.failure?.report).toContain('uploaded: file, expected: image');
  });
});
