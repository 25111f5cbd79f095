/**
 * The benchmark's project: a 300-step flow (`big`) with every kind of step, ~100 variables, texts from
 * the catalogs (`i18n`) and `call:` steps into another flow (`sub`), with a transcript.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const STEPS = 300;
const VARS = 100;

/** One step of the big flow: each kind of step in turn, every step reaching the next. */
function step(i: number): string {
  const id = `s${i}`;
  const next = i + 1 < STEPS ? `s${i + 1}` : 'done';
  const v = `v${i % VARS}`;
  switch (i % 8) {
    case 0:
      return `  ${id}:\n    type: message\n    say: msg-${i}\n    next: ${next}\n`;
    case 1:
      return `  ${id}:\n    type: input\n    say: msg-${i}\n    input: text\n    retries: { max: 2, exhausted: { goto: done } }\n    save: ${v}\n    next: ${next}\n`;
    case 2:
      return `  ${id}:\n    type: menu\n    say: msg-${i}\n    keyboard:\n      - - { id: a${i}, text: label-${i}, goto: ${next} }\n        - { id: b${i}, text: label-${i}-b, set: { v${(i + 1) % VARS}: "b" }, goto: ${next} }\n`;
    case 3:
      return `  ${id}:\n    type: branch\n    cases:\n      - { when: { var: v${(i - 2) % VARS}, eq: "b" }, goto: ${next} }\n    else: ${next}\n`;
    case 4:
      return `  ${id}:\n    type: call\n    flow: sub\n    next: ${next}\n`;
    case 5:
      return `  ${id}:\n    type: wait\n    say: msg-${i}\n    idle: { after: 1d, goto: ${next} }\n    on_event:\n      thing_happened: { goto: ${next} }\n`;
    case 6:
      return `  ${id}:\n    type: handoff\n    reason: help-${i}\n    say: msg-${i}\n    timeout: { goto: ${next} }\n    return_to: ${next}\n`;
    default:
      return `  ${id}:\n    type: input\n    say: msg-${i}\n    input: integer\n    retries: { max: 2, exhausted: { goto: done } }\n    save: ${v}n\n    next: ${next}\n`;
  }
}

/** The big flow's text. */
export function bigFlow(): string {
  const head = `flow: big
start: s0
i18n: { default_locale: en, locales: [en] }
handoff: { operators_chat: -1000, timeout: 15m }
triggers:
  - command: big
events:
  thing_happened:
    description: Something happened elsewhere
    while_elsewhere: queue
steps:
`;
  const steps = Array.from({ length: STEPS }, (_, i) => step(i)).join('');
  return `${head}${steps}  done:\n    type: end\n    say: msg-done\n`;
}

const SUB = `flow: sub
start: hello
i18n: { default_locale: en, locales: [en] }
steps:
  hello:
    type: message
    say: sub-hello
    next: bye
  bye:
    type: end
`;

function catalog(): string {
  const lines = ['msg-done = Done.', 'sub-hello = Hello from the called flow.'];
  lines.push('msg-0 = Hello! What is your name?');
  for (let i = 1; i < STEPS; i++) lines.push(`msg-${i} = Step ${i} says hello, { $v1 }.`);
  for (let i = 2; i < STEPS; i += 8) lines.push(`label-${i} = Yes ${i}`, `label-${i}-b = No ${i}`);
  for (let i = 6; i < STEPS; i += 8) lines.push(`help-${i} = Asked for help at step ${i}`);
  return `${lines.join('\n')}\n`;
}

const TRANSCRIPT = `flow: big
name: the first steps
turns:
  - start: true
    bot: nothing
  - say: Ann
    bot: nothing
  - press: Yes 2
    bot: nothing
`;

/**
 * Adds the big flow, the flow it calls, their messages (appended to `locales/en.ftl`) and a transcript to
 * the project in `dir` (a copy of the example project, or an empty folder).
 */
export function writeBenchProject(dir: string): void {
  mkdirSync(join(dir, 'flows', 'locales'), { recursive: true });
  mkdirSync(join(dir, 'flows', 'tests'), { recursive: true });
  writeFileSync(join(dir, 'flows', 'big.flow.yaml'), bigFlow());
  writeFileSync(join(dir, 'flows', 'sub.flow.yaml'), SUB);
  const en = join(dir, 'flows', 'locales', 'en.ftl');
  writeFileSync(en, `${existsSync(en) ? readFileSync(en, 'utf8') : ''}\n${catalog()}`);
  writeFileSync(join(dir, 'flows', 'tests', 'big.test.yaml'), TRANSCRIPT);
}
