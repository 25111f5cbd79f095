/** Two flows that start on the same trigger: only one would ever run, so check names both files. */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';

const flow = (id: string, triggers: string) =>
  `flow: ${id}\nstart: hi\ntriggers:\n${triggers}\nsteps:\n  hi: { type: end, say: Hi }\n`;

const check = (a: string, b: string) =>
  compileSources(
    [
      { file: 'flows/signup.flow.yaml', source: flow('signup', a) },
      { file: 'flows/welcome.flow.yaml', source: flow('welcome', b) },
    ],
    EMPTY_REGISTRY,
    new Map(),
  ).problems.map(formatProblem);

describe('botflow check: triggers across flows', () => {
  it('refuses two flows started by bot_started, naming both files', () => {
    expect(check('  - bot_started: true\n  - command: signup', '  - bot_started: true')).toEqual([
      'flows/welcome.flow.yaml:4:5: error: flows "signup" (flows/signup.flow.yaml:4) and "welcome" (flows/welcome.flow.yaml) both start on bot_started: only one of them would ever run\n' +
        '    hint: keep bot_started in one flow; tell the others apart by deep-link payload: bot_started: { payload: promo }',
    ]);
  });

  it('refuses the same command, and accepts different payloads and commands', () => {
    expect(check('  - command: Signup', '  - command: signup').map((l) => l.split('\n')[0])).toEqual([
      'flows/welcome.flow.yaml:4:5: error: flows "signup" (flows/signup.flow.yaml:4) and "welcome" (flows/welcome.flow.yaml) both start on the command /signup: only one of them would ever run',
    ]);
    expect(
      check(
        '  - bot_started: true\n  - command: signup',
        '  - bot_started: { payload: promo }\n  - command: welcome',
      ),
    ).toEqual([]);
  });
});
