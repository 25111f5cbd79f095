/**
 * A step kind has one home (src/flows/kinds/<kind>/): nothing outside a kind's folder and the kinds'
 * registry asks a step what type it is. A decision on a step's `type` elsewhere means a kind's behaviour
 * leaked out of its module: ask the step's kind (`kindOf(step)`) for it instead, through the contract
 * (src/flows/kinds/contract.ts). Every form of that decision counts (FORMS): a comparison of a step's type
 * (`step.type === 'input'`, `'menu' !== s.type`, `kindOf(st).type === END`), a kind's name compared with
 * whatever holds a type (`type !== 'end'`, `t === 'menu'`, `KIND === 'call'`), a `switch` with a kind's
 * name as a `case`, a lookup or a list by a step's type (`{ input: …, menu: … }[step.type]`,
 * `KINDS.includes(type)`), and a step's type taken aside to be decided on later (`const t = step.type`,
 * `const { type } = step`). A step is recognised by the names the code gives steps (STEP); the things whose
 * `type` or `kind` shares a kind's name (an event's `message`, a record's `call` and `end`, a button's
 * `message`, a transcript's `wait`) are named in NOT_A_STEP.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KIND_NAMES } from '../../src/flows/kinds/registry.ts';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const HOME = 'flows/kinds/';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** A kind's name as a string: 'menu', "menu", `menu`. */
const NAMES = KIND_NAMES.join('|');
const KIND = `(?:'(?:${NAMES})'|"(?:${NAMES})"|\`(?:${NAMES})\`)`;
/** What the code calls a step, or a step's kind: `step`, `s`, `st`, `called`, `e.step`, `kindOf(x)`… */
const STEP = String.raw`(?:\b(?:step|s|st|called|callee|target|kind)|\b\w+\.step|\bkindOf\([^()]*\)|\bsteps\[[^\]]+\])\??`;
/** A name that holds a type (`type`, `t`, `stepType`, `KIND`, `END`): compared with a kind's name, it is one. */
const TYPE_NAME = String.raw`(?<![\w$.?])(?:type|t|\w*Type|[A-Z][A-Z0-9_]*)\b`;
/** An expression (a name, a property chain, a call) as it stands beside `===` or in `switch (…)`. */
const EXPR = String.raw`[\w$?.]+(?:\([^()]*\))?(?:[\w$?.]+)?`;
const EQ = '[!=]==?(?!=)';

/**
 * Things whose `type` (or `kind`) shares a kind's name and are not steps: events (`message`), records and
 * outbox operations (`call`, `end`), buttons (`message`), a transcript's actions (`wait`, `call`), keys of a
 * flow file's YAML (`input` of a task).
 */
const NOT_A_STEP =
  /^(?:event|e|ev|record|r|button|b|op|candidate|trigger|a|action|key|k)(?:\??\.(?:type|kind))?$|\.(?:kind|leftBy|anchor)$|^buttonType\(/;

const FORMS: Record<string, RegExp> = {
  /** `step.type === 'menu'`, `END !== kindOf(s).type`: a step's type compared with a kind's name or a name. */
  compared: new RegExp(
    `${STEP}\\.type\\s*${EQ}\\s*(?:${KIND}|(?![\\s'"\`]))|(?:${KIND}|[\\w$)\\]])\\s*${EQ}\\s*${STEP}\\.type\\b`,
    'g',
  ),
  /** `type !== 'end'`, `'menu' === t`, `KIND === 'call'`: a kind's name compared with a type held aside. */
  named: new RegExp(`${TYPE_NAME}\\s*${EQ}\\s*${KIND}|${KIND}\\s*${EQ}\\s*${TYPE_NAME}\\b`, 'g'),
  /** `switch (step.type) { … }`: a step's type switched on, whatever the cases. */
  switched: new RegExp(`\\bswitch\\s*\\(\\s*${STEP}\\.type\\s*\\)`, 'g'),
  /** `{ input: …, menu: … }[step.type]`, `ROWS[stepType]`: something looked up by a step's type. */
  lookedUp: new RegExp(`\\[\\s*(?:${STEP}\\.type|stepType)\\s*\\]`, 'g'),
  /** `['input', 'menu'].includes(step.type)`, `WAITS.has(stepType)`: a list of kinds asked of a step. */
  listed: new RegExp(`\\.(?:includes|has|indexOf)\\(\\s*(?:${STEP}\\.type|stepType)\\s*\\)`, 'g'),
  /** `const t = step.type`, `const { type } = s`, `({ type }: Step) =>`: a step's type taken aside. */
  takenAside: new RegExp(
    `(?:const|let|var)\\s+[\\w$]+\\s*=\\s*${STEP}\\.type\\b(?!\\s*${EQ})|(?:const|let|var)\\s*\\{[^}]*\\btype\\b[^}]*\\}\\s*=\\s*${STEP}(?![\\w.])|\\{[^}]*\\btype\\b[^}]*\\}\\s*:\\s*\\w*Step\\b`,
    'g',
  ),
};

/** `x.kind === 'menu'`, `'end' === record.type`: a kind's name compared with anything but NOT_A_STEP. */
const NAME_COMPARED = new RegExp(`(${EXPR})\\s*${EQ}\\s*${KIND}|${KIND}\\s*${EQ}\\s*(${EXPR})`, 'g');

/** `switch (x) { … case 'menu': … }` (x not NOT_A_STEP): a kind's name as a case. */
function kindCases(text: string): number {
  let n = 0;
  for (const c of text.matchAll(new RegExp(`\\bcase\\s+${KIND}\\s*:`, 'g'))) {
    const before = text.slice(0, c.index);
    const switches = [...before.matchAll(/\bswitch\s*\(\s*(.*?)\s*\)\s*\{/g)];
    const on = switches.at(-1)?.[1] ?? '';
    if (!NOT_A_STEP.test(on)) n++;
  }
  return n;
}

/** The kinds' names compared with an expression that is not NOT_A_STEP (nor counted by FORMS.named). */
function namesCompared(text: string): number {
  return [...text.matchAll(NAME_COMPARED)].filter((m) => {
    const expr = (m[1] ?? m[2])!;
    const counted = new RegExp(`^(?:${TYPE_NAME}|${STEP}\\.type)$`).test(expr);
    return !counted && !NOT_A_STEP.test(expr);
  }).length;
}

/** The decisions on a step's type in `text`, by form. */
function decisions(text: string): Record<string, number> {
  const found: Record<string, number> = {};
  for (const [form, re] of Object.entries(FORMS)) found[form] = text.match(re)?.length ?? 0;
  found.nameCompared = namesCompared(text);
  found.kindCase = kindCases(text);
  return Object.fromEntries(Object.entries(found).filter(([, n]) => n > 0));
}

const count = (text: string) => Object.values(decisions(text)).reduce((a, b) => a + b, 0);

describe('step kinds', () => {
  it('recognises each form of a decision on a step type', () => {
    const each: Record<string, string> = {
      compared:
        "if (step.type === 'input') x(); if (s?.type !== 'menu') y(); if (kindOf(st).type === END) z();",
      reversed: "if ('wait' === st.type) z(); called?.type === 'call'; if ('end' == e.step.type) w();",
      named:
        "const { type } = entry; if (type !== 'end') x(); if ('menu' === t) y(); if (KIND === 'call') z();",
      aside: 'const t = step.type; const { type, id } = s; const f = ({ type }: MenuStep) => type;',
      switched: "switch (step.type) {\n  case 'input':\n    x();\n  case 'menu':\n    y();\n}",
      switchedAside: "switch (shape) {\n  case 'branch':\n    x();\n}",
      lookedUp: 'const rows = { input: 1, menu: 2 }[step.type]; const r = ROWS[stepType];',
      listed: "if (['input', 'menu'].includes(step.type)) z(); if (WAITS.has(stepType)) w();",
      otherNames: "if (node.kind === 'menu') x(); if ('handoff' === view.type) y();",
    };
    const counts = Object.fromEntries(Object.entries(each).map(([k, v]) => [k, count(v)]));
    expect(counts).toEqual({
      compared: 3,
      reversed: 3,
      named: 3,
      aside: 3,
      switched: 3,
      switchedAside: 1,
      lookedUp: 2,
      listed: 2,
      otherNames: 1,
    });
  });

  it("does not count an event's, a record's, a button's or a transcript's type", () => {
    const others = [
      "if (event.type === 'message' || record.type === 'end') z();",
      "if (e.type !== 'message') return; if (op.kind === 'call') n++; if (t?.kind === 'call') m();",
      "switch (button.type) {\n  case 'message':\n    return 1;\n}",
      "switch (a.kind) {\n  case 'wait':\n    return 2;\n}",
      "const computed = key === 'set' || (key === 'input' && 'task' in node);",
      "const label = 'a ' + step.type + ' step'; const kind = drawingOf(k); if (chat.type === 'dialog') x();",
      "const { type, params } = action; if (type === 'xstate.raise') y();",
    ];
    for (const text of others) expect(decisions(text), text).toEqual({});
  });

  it('are decided on by type only in their own folder and the registry', () => {
    const found: Record<string, Record<string, number>> = {};
    for (const file of sources(SRC)) {
      const path = relative(SRC, file);
      if (path.startsWith(HOME)) continue;
      const d = decisions(readFileSync(file, 'utf8'));
      if (Object.keys(d).length > 0) found[path] = d;
    }
    expect(found, "ask the step's kind (kindOf) instead: src/flows/kinds/contract.ts").toEqual({});
  });
});
