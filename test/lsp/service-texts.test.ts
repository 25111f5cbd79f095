/**
 * The language service on small projects written here: expressions and conditions, a flow being typed
 * (read by a scan of its lines over its last full index), calls between flows, a variable shared with a
 * called flow.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRegistry } from '../../src/flows/registry.ts';
import { createLanguageService, type ProjectSnapshot } from '../../src/lsp/language-service.ts';
import { applyEdit, edited, positionOf } from './project.ts';

const MAIN = '/p/flows/main.flow.yaml';
const SUB = '/p/flows/sub.flow.yaml';
const MAIN_TEXT = `flow: main
start: ask_qty
steps:
  ask_qty:
    type: input
    say: "How many?"
    input: integer
    retries: { max: 3, exhausted: { goto: bye } }
    save: qty
    next: price
  price:
    type: message
    say: "Each is {{qty}}"
    set: { total: "= qty * 2" }
    next: address
  address:
    type: call
    flow: sub
    with: { city: "Berlin" }
    next: bye
  bye:
    type: end
    say: "Total {{total}}, to {{street}} in {{city}}"
`;
const SUB_TEXT = `flow: sub
start: ask_street
steps:
  ask_street:
    type: input
    say: "Your street in {{city}}?"
    input: text
    retries: { max: 3, exhausted: { goto: done } }
    save: street
    next: done
  done:
    type: end
`;

const REGISTRY = defineRegistry({
  guards: { vip: () => true },
  events: { shipped: z.object({ id: z.number() }) },
});

const project = (main = MAIN_TEXT): ProjectSnapshot => ({
  root: '/p',
  flows: [
    { file: MAIN, text: main },
    { file: SUB, text: SUB_TEXT },
  ],
  catalogs: [],
  transcripts: [],
  registry: REGISTRY,
});
const labels = (items: { label: string }[]) => items.map((i) => i.label);

describe('completion in expressions and conditions', () => {
  it('offers variables in an = expression and after var:', () => {
    const s = createLanguageService();
    const expr = MAIN_TEXT.replace('"= qty * 2"', '"= qty * q"');
    const items = s.completion(project(expr), MAIN, positionOf(expr, '= qty * q', 9));
    expect(labels(items)).toEqual(expect.arrayContaining(['qty', 'total']));
    expect(items[0]!.textEdit).toMatchObject({ newText: expect.any(String) });
    const cond = MAIN_TEXT.replace(
      '    next: price\n',
      '    next:\n      - { when: { var: q }, goto: price }\n',
    );
    const vars = s.completion(project(cond), MAIN, positionOf(cond, 'var: q', 6));
    expect(vars.find((i) => i.label === 'qty')!.detail).toBe('qty: a number');
  });
});

describe('completion of closed lists, events and the registry', () => {
  it("offers a field's values from its schema, events after on_event, guards after guard:", () => {
    const s = createLanguageService();
    const input = MAIN_TEXT.replace('input: integer', 'input: ');
    expect(labels(s.completion(project(input), MAIN, positionOf(input, 'input: \n', 7)))).toEqual(
      expect.arrayContaining(['text', 'integer', 'date', 'multi_choice']),
    );
    const events = MAIN_TEXT.replace(
      '  bye:\n',
      '  wait_paid:\n    type: wait\n    on_event:\n      paid: { goto: bye }\n  wait_more:\n    type: wait\n    on_event:\n      \n  bye:\n',
    );
    const at = positionOf(events, '    on_event:\n      \n', 19);
    // A new service: this one read the file last without the step that names `paid` (what a full read
    // finds besides steps and variables is a pause in typing late; see quick-scan.ts).
    expect(labels(createLanguageService().completion(project(events), MAIN, at))).toEqual([
      'paid',
      'shipped',
    ]);
    const guard = MAIN_TEXT.replace(
      '    next: price\n',
      '    next:\n      - { when: { guard:  }, goto: price }\n',
    );
    const items = s.completion(project(guard), MAIN, positionOf(guard, 'guard:  }', 7));
    expect(labels(items)).toEqual(['vip']);
  });
});

describe('a flow being typed', () => {
  it('offers a step added since the last full read, and the fields of its kind', () => {
    const s = createLanguageService();
    const first = project();
    expect(s.documentSymbols(first, MAIN)[0]!.children).toHaveLength(4); // a full read of the file
    const typed = MAIN_TEXT.replace('  bye:\n', '  thanks:\n    type: menu\n    \n  bye:\n');
    const p = edited(first, MAIN, typed);
    const fields = s.completion(p, MAIN, positionOf(typed, '    type: menu\n    \n', 19));
    expect(labels(fields)).toEqual(expect.arrayContaining(['keyboard', 'on_text', 'say']));
    const withGoto = typed.replace('    next: bye\n', '    next: th\n');
    const steps = s.completion(edited(first, MAIN, withGoto), MAIN, positionOf(withGoto, 'next: th', 8));
    expect(labels(steps)).toEqual(['ask_qty', 'price', 'address', 'thanks', 'bye']);
    expect(steps.find((i) => i.label === 'thanks')!.detail).toBe('menu');
  });
});

describe('flows that call each other', () => {
  it("goes from a call step's flow to the called flow, and hovers a kind", () => {
    const s = createLanguageService();
    const [def] = s.definition(project(), MAIN, positionOf(MAIN_TEXT, 'flow: sub', 7));
    expect(def!.uri).toBe('file:///p/flows/sub.flow.yaml');
    expect(def!.range.start).toEqual({ line: 0, character: 6 });
    const h = s.hover(project(), MAIN, positionOf(MAIN_TEXT, 'type: call', 7));
    expect((h!.contents as { value: string }).value).toMatch(/^\*\*call\*\*: Runs another flow/);
  });

  it('renames a variable in the flow and the flow it calls, which share it', () => {
    const s = createLanguageService();
    const at = positionOf(MAIN_TEXT, 'with: { city', 9);
    expect(s.references(project(), MAIN, at, true)).toHaveLength(3);
    const renamed = applyEdit(project(), s.rename(project(), MAIN, at, 'town')!);
    expect(renamed.flows[0]!.text).toContain('with: { town: "Berlin" }');
    expect(renamed.flows[0]!.text).toContain('in {{town}}"');
    expect(renamed.flows[1]!.text).toContain('"Your street in {{town}}?"');
    // The step of the called flow named in the caller's reads is the callee's own.
    const street = s.definition(project(), MAIN, positionOf(MAIN_TEXT, '{{street}}', 3));
    expect(street.map((l) => l.uri)).toEqual(['file:///p/flows/sub.flow.yaml']);
  });
});
