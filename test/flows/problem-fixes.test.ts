/**
 * The did-you-mean cases of `botflow check` come with a fix as structured edits: each case here applies
 * the fix's edits to the files and checks again, and the problem is gone (and nothing new appeared).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ProblemCode } from '../../src/flows/problem-codes.ts';
import { defineRegistry, defineTask } from '../../src/flows/registry.ts';
import { applyFix, checkFiles, type Files, spanOf, textOf } from './problem-project.ts';

const registry = defineRegistry({
  tasks: {
    save_order: defineTask({
      input: z.object({ pizza: z.string() }),
      result: z.object({ id: z.number(), eta: z.string() }),
      run: async () => ({ id: 1, eta: 'soon' }),
    }),
    nlu: () => ({ intent: null, confidence: 0 }),
  },
  guards: { open_now: () => true },
  validators: { is_pizza: () => true },
  effects: { notify_crm: () => [] },
  events: { order_shipped: z.object({ id: z.number() }) },
});

const SHOP = `flow: shop
start: menu
defaults:
  idle: { after: 1d, goto: bye }
intents:
  help: [help]
steps:
  menu:
    type: menu
    say: Hi!
    keyboard: [[{ id: go, text: Order, goto: pick }]]
    understand:
      intents: { help: { goto: helper } }
  pick:
    type: input
    say: Which pizza?
    input: text
    render: edit
    validate: [{ rule: is_pizza }]
    retries: { max: 2, exhausted: { goto: bye } }
    save: pizza
    next:
      - { when: { guard: open_now }, goto: order }
      - { goto: bye }
  order:
    type: message
    say: Ordering your {{pizza}}…
    do:
      - task: save_order
        input: { pizza: "{{pizza}}" }
        save_as: order
        on_error: { say: "Sorry.", goto: bye }
    next: wait
  wait:
    type: wait
    say: Order {{order.id}} comes {{order.eta}}.
    on_event:
      order_shipped: { goto: bye }
  helper:
    type: call
    flow: help
    next: bye
  bye:
    type: end
    say: bye-text
    do: [{ effect: notify_crm }]
`;
const HELP = 'flow: help\nstart: a\nsteps:\n  a:\n    type: end\n    say: We help.\n';
const project = (shop = SHOP, help = HELP): Files => ({
  'flows/shop.flow.yaml': shop,
  'flows/help.flow.yaml': help,
});

interface Case {
  name: string;
  files: Files;
  code: ProblemCode;
  /** The text the problem covers. */
  faulty: string;
  fix: string;
  /** The files once fixed, when not the project as it was before the mistake. */
  fixed?: Files;
}

const mistake = (from: string, to: string) => project(SHOP.replace(from, to));
const cases: Case[] = [
  {
    name: 'a goto to a misspelt step',
    files: mistake('    next: wait', '    next: wiat'),
    code: 'unknown-step',
    faulty: 'wiat',
    fix: 'Change to "wait"',
  },
  {
    name: 'a misspelt step in a next list',
    files: mistake('goto: order }', 'goto: ordr }'),
    code: 'unknown-step',
    faulty: 'ordr',
    fix: 'Change to "order"',
  },
  {
    name: 'a misspelt idle step',
    files: mistake('goto: bye }\nintents', 'goto: by }\nintents'),
    code: 'unknown-step',
    faulty: 'by',
    fix: 'Change to "bye"',
  },
  {
    name: 'a call of a misspelt flow',
    files: mistake('flow: help', 'flow: hepl'),
    code: 'unknown-flow',
    faulty: 'hepl',
    fix: 'Change to "help"',
  },
  {
    name: 'a flow id that differs from the file name',
    files: mistake('flow: shop', 'flow: shopp'),
    code: 'flow-id-mismatch',
    faulty: 'shopp',
    fix: 'Change to "shop"',
  },
  {
    name: 'a misspelt key',
    files: mistake('    say: Which pizza?', '    sayy: Which pizza?'),
    code: 'unknown-key',
    faulty: 'sayy',
    fix: 'Change to "say"',
  },
  {
    name: 'a misspelt kind of step',
    files: mistake('type: message', 'type: mesage'),
    code: 'unknown-step-type',
    faulty: 'mesage',
    fix: 'Change to "message"',
  },
  {
    name: 'a misspelt value of a list of values',
    files: mistake('render: edit', 'render: edti'),
    code: 'bad-value',
    faulty: 'edti',
    fix: 'Change to "edit"',
  },
  {
    name: 'a misspelt task',
    files: mistake('task: save_order', 'task: save_ordr'),
    code: 'unknown-task',
    faulty: 'save_ordr',
    fix: 'Change to "save_order"',
  },
  {
    name: "a misspelt field of a task's input",
    files: mistake('input: { pizza:', 'input: { piza:'),
    code: 'unknown-task-input',
    faulty: 'piza',
    fix: 'Change to "pizza"',
  },
  {
    name: 'a misspelt guard',
    files: mistake('guard: open_now', 'guard: open_nwo'),
    code: 'unknown-guard',
    faulty: 'open_nwo',
    fix: 'Change to "open_now"',
  },
  {
    name: 'a misspelt validator',
    files: mistake('rule: is_pizza', 'rule: is_piza'),
    code: 'unknown-validator',
    faulty: 'is_piza',
    fix: 'Change to "is_pizza"',
  },
  {
    name: 'a misspelt effect',
    files: mistake('effect: notify_crm', 'effect: notify_cmr'),
    code: 'unknown-effect',
    faulty: 'notify_cmr',
    fix: 'Change to "notify_crm"',
  },
  {
    name: 'a misspelt event',
    files: mistake('order_shipped: { goto', 'order_shiped: { goto'),
    code: 'unknown-event',
    faulty: 'order_shiped',
    fix: 'Change to "order_shipped"',
  },
  {
    name: 'a misspelt intent',
    files: mistake('intents: { help:', 'intents: { hlep:'),
    code: 'unknown-intent',
    faulty: 'hlep',
    fix: 'Change to "help"',
  },
  {
    name: 'a misspelt variable in a text',
    files: mistake('your {{pizza}}', 'your {{piza}}'),
    code: 'unknown-variable',
    faulty: 'piza',
    fix: 'Change to "pizza"',
  },
  {
    name: 'a misspelt field of a variable',
    files: mistake('{{order.eta}}', '{{order.eat}}'),
    code: 'unknown-field',
    faulty: 'order.eat',
    fix: 'Change to "order.eta"',
  },
  {
    name: 'a misspelt classifier',
    files: mistake(
      '      intents: { help: { goto: helper } }',
      '      classifier: nlx\n      intents: { help: { goto: helper } }',
    ),
    code: 'unknown-classifier',
    faulty: 'nlx',
    fix: 'Change to "nlu"',
    fixed: mistake(
      '      intents: { help: { goto: helper } }',
      '      classifier: nlu\n      intents: { help: { goto: helper } }',
    ),
  },
];

describe('fixes of the did-you-mean cases', () => {
  it('the project checks clean before a mistake is made', () => {
    expect(checkFiles(project(), registry)).toEqual([]);
  });

  it.each(cases)('$name: the fix replaces the faulty text, and checking again finds nothing', (c) => {
    const problems = checkFiles(c.files, registry);
    const problem = problems.find((p) => p.code === c.code);
    expect(problem, JSON.stringify(problems, null, 2)).toBeDefined();
    expect(textOf(c.files[problem!.file]!, spanOf(problem!))).toBe(c.faulty);
    expect(problem!.fixes?.map((f) => f.title)).toEqual([c.fix]);
    const fixed = applyFix(c.files, problem!.fixes![0]!);
    expect(checkFiles(fixed, registry)).toEqual([]);
    expect(fixed).toEqual(c.fixed ?? project());
  });
});

describe('fixes in a file the schema rejects', () => {
  it('a misspelt key and a misspelt goto in one file: both fixes made, the file checks clean', () => {
    const files = project(
      SHOP.replace('    say: Which pizza?', '    sayy: Which pizza?').replace(
        '    next: wait',
        '    next: "wiat"',
      ),
    );
    let problems = checkFiles(files, registry);
    expect(problems.map((p) => p.code).sort()).toEqual(['unknown-key', 'unknown-step']);
    let fixed = files;
    for (const p of problems) fixed = applyFix(fixed, p.fixes![0]!);
    problems = checkFiles(fixed, registry);
    expect(problems).toEqual([]);
    // The quotes around the step id stay: only the faulty name is replaced.
    expect(fixed).toEqual(project(SHOP.replace('    next: wait', '    next: "wait"')));
  });
});
