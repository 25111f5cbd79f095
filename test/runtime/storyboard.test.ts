/**
 * The storyboard of the example flows: each step entered for real on an in-memory engine, in each locale
 * of the flow, with sample values named after the variables; the HTML page is self-contained and escapes
 * what it shows; `botflow storyboard` writes it.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { command as storyboardCommand } from '../../src/cli/storyboard-command.ts';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources, loadFlows } from '../../src/flows/load.ts';
import { defineRegistry, EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { loadCatalog } from '../../src/flows/texts.ts';
import { buildStoryboard, sampleVars, storyboardHtml } from '../../src/runtime/storyboard.ts';

let flows: FlowDefinition[];
beforeAll(async () => {
  flows = (await loadFlows('flows')).flows;
});
const flow = (id: string) => flows.find((f) => f.id === id)!;

describe('the storyboard', () => {
  it('shows every step of a flow in each of its locales, with keyboards and the ways out', () => {
    const board = buildStoryboard(flow('booking'));
    expect(board.locales).toEqual(['en', 'ru']);
    const step = (id: string) => board.steps.find((s) => s.id === id)!;
    expect(board.steps.map((s) => s.id)).toContain('ask_time');
    expect(step('ask_day').start).toBe(true);
    expect(step('booked').final).toBe(true);

    // A list step gets sample items: its buttons show, in each language.
    const [en, ru] = step('ask_time').frames;
    expect(en!.messages[0]!.text).toBe('At what time?');
    expect(ru!.messages[0]!.text).toBe('На какое время?');
    expect(en!.messages[0]!.buttons.flat().map((b) => b.text)).toEqual([
      '‹time 1› (‹seats 1› seats)',
      '‹time 2› (‹seats 2› seats)',
    ]);
    expect(step('ask_time').next).toContainEqual({ to: 'ask_extras', label: 'valid answer' });
    expect(step('ask_time').next).toContainEqual({ to: 'ask_day', label: 'empty list' });
    // Variables show their names, never an empty gap.
    expect(step('confirm').frames[0]!.messages[0]!.text).toContain('‹day› at ‹time›');
  });

  it('shows formatting as the person sees it, and only messages to the person', () => {
    const board = buildStoryboard(flow('signup'));
    const ask = board.steps.find((s) => s.id === 'ask_name')!.frames[0]!.messages[0]!;
    expect(ask.text).toBe('Welcome! What is your name?');
    expect(ask.markup).toEqual([{ type: 'strong', from: 22, length: 4 }]);
    const registry = defineRegistry({
      effects: {
        tell_staff: () => ({ kind: 'api', op: 'sendMessage', args: { chat_id: 999, text: 'to staff' } }),
      },
    });
    const compiled = compileSources(
      [
        {
          file: 'note.flow.yaml',
          source:
            'flow: note\nstart: done\ntriggers: [{ bot_started: true }]\nsteps:\n' +
            '  done: { type: end, say: Thanks., do: [{ effect: tell_staff }] }\n',
        },
      ],
      registry,
      new Map(),
    );
    expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const [done] = buildStoryboard(compiled.flows[0]!).steps;
    expect(done!.frames[0]!.messages.map((m) => m.text)).toEqual(['Thanks.']); // not the note to staff
  });

  it('names the variables of flow texts and catalogs, lists with their items’ fields', () => {
    expect(
      sampleVars('say: "Hi {{name}}, {{task_error.code}}"\nx = { $deposit }\nlist: slots\n{{item.time}}'),
    ).toEqual({
      name: '‹name›',
      task_error: { code: '‹task_error.code›' },
      deposit: '‹deposit›',
      slots: [{ time: '‹time 1›' }, { time: '‹time 2›' }],
    });
  });

  it('gives numbers to the variables a catalog formats with NUMBER, and dates to DATETIME ones', () => {
    expect(
      sampleVars(
        'total = { NUMBER($total, minimumFractionDigits: 2) }\n' +
          'left = { $n ->\n  [one] one seat\n *[other] { $n } seats\n}\n' +
          'day = { DATETIME($day, dateStyle: "long") }\nplain = {$plain}',
      ),
    ).toEqual({ total: 1234.5, n: '‹n›', day: '2026-03-31', plain: '‹plain›' });
    const catalogs = new Map([
      [
        'en',
        loadCatalog(
          'en',
          'en.ftl',
          'due = You owe { NUMBER($total, minimumFractionDigits: 2) } by { DATETIME($day, dateStyle: "long") }.\n',
        ),
      ],
    ]);
    const compiled = compileSources(
      [
        {
          file: 'bill.flow.yaml',
          source:
            'flow: bill\nstart: due\ni18n: { default_locale: en }\ntriggers: [{ bot_started: true }]\n' +
            'steps:\n  due: { type: end, say: due }\n',
        },
      ],
      EMPTY_REGISTRY,
      catalogs,
    );
    expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const [due] = buildStoryboard(compiled.flows[0]!).steps;
    expect(due!.frames[0]!.messages[0]!.text).toBe('You owe 1,234.50 by March 31, 2026.');
  });

  it('renders one self-contained page: escaped texts, links along the transitions, no script', () => {
    const compiled = compileSources(
      [
        {
          file: 'odd.flow.yaml',
          source: `flow: odd
start: a
triggers: [{ bot_started: true }]
steps:
  a:
    type: input
    say: "Is 2 &lt; 3? <i>Say</i> <script>alert(1)</script>"
    input: text
    retries: { max: 2, exhausted: { goto: b } }
    save: answer
    next: b
  b: { type: end, say: Bye. }
`,
        },
      ],
      EMPTY_REGISTRY,
      new Map(),
    );
    const html = storyboardHtml([buildStoryboard(compiled.flows[0]!)], 'odd <flow>');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('<title>odd &lt;flow&gt;</title>');
    expect(html).toContain('Is 2 &lt; 3? <i>Say</i> alert(1)');
    expect(html).toContain('<a href="#odd--b">→ b</a>');
    expect(html).toContain('id="odd--b"');
    expect(html).not.toMatch(/(src|href)="https?:/);
  });

  it('botflow storyboard writes the file for one flow or all', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'botflow-storyboard-')), 'signup.html');
    const logs: string[] = [];
    const log = console.log;
    console.log = (line: string) => logs.push(line);
    try {
      expect(await storyboardCommand.run(['flows', '--flow', 'signup', '--out', out])).toBe(0);
    } finally {
      console.log = log;
    }
    expect(logs).toEqual([`wrote ${out}: 1 flow(s), 8 steps`]);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('id="signup--confirm"');
    expect(html).not.toContain('Download as HTML');
  });
});
