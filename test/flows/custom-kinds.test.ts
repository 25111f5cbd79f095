/**
 * A project's own kind of step (defineStepKind): the adapter to the kinds' contract (schema, walk, data-flow
 * graph, state), `botflow check` on its fields (file:line:col, did-you-mean), the flow's version, and the
 * example `rating` kind (flows/code/rating.ts) driven through its compiled machine.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rating, readRating } from '../../flows/code/rating.ts';
import { defineStepKind } from '../../src/flows/kinds/custom.ts';
import { adaptKind, projectKinds } from '../../src/flows/kinds/custom-adapter.ts';
import { kindOf } from '../../src/flows/kinds/registry.ts';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { rebuildFlow } from '../../src/flows/rebuild.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { flowJsonSchema } from '../../src/flows/schema.ts';
import { canonicalJson } from '../../src/flows/versions.ts';
import { parseFlowSource } from '../../src/flows/yaml-source.ts';
import { flowGraph } from '../../src/testing/coverage-graph.ts';
import { Drive } from './drive.ts';

const registry = defineRegistry({ kinds: [rating] });

const flow = (rate = '    question: "Rate us, {{name}}"\n    save: stars\n    next: thanks\n') => `flow: demo
start: hello
steps:
  hello:
    type: message
    set: { name: Ann }
    next: rate
  rate:
    type: rating
${rate}  thanks:
    type: end
    say: "Thanks for {{stars}} of 5"
`;

function compile(source: string, reg = registry) {
  const r = compileSources([{ file: 'demo.flow.yaml', source }], reg, new Map());
  return {
    ...r,
    lines: r.problems.map((p) => formatProblem({ ...p, hint: undefined })),
    hints: r.problems.map((p) => p.hint),
  };
}

describe('defineStepKind', () => {
  it('refuses a declaration that cannot work, saying why', () => {
    const base = {
      type: 'stars',
      summary: 's',
      fields: z.object({ save: z.string() }),
      exits: { next: 'n' },
      show: () => ({}),
    };
    expect(() => defineStepKind({ ...base, type: 'Stars!' })).toThrow(/lower-case letters/);
    expect(() => defineStepKind({ ...base, fields: z.object({ say: z.string() }) })).toThrow(
      /"say" is a field every step has/,
    );
    expect(() => defineStepKind({ ...base, exits: {} })).toThrow(/at least one way out/);
    expect(() => defineStepKind({ ...base, exits: { save: 'x' } })).toThrow(/both a field and an exit/);
    expect(defineStepKind(base).type).toBe('stars');
  });
});

describe('the adapter: a project kind as the contract', () => {
  const kind = adaptKind(rating);

  it('validates its fields, its exits (step ids) and what every step has, strictly', () => {
    const ok = kind.schema.safeParse({ type: 'rating', question: 'q', save: 's', next: 'n', set: { a: 1 } });
    expect(ok.success).toBe(true);
    const bad = kind.schema.safeParse({ type: 'rating', question: 'q', save: 's', nxt: 'n' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.code).sort()).toEqual(['invalid_type', 'unrecognized_keys']);
    expect(projectKinds(registry)).toEqual([kind]);
    expect(projectKinds(registry)).toBe(projectKinds(registry));
  });

  it('is attached to its parsed steps, invisibly to JSON and hashes; kindOf finds it', () => {
    const parsed = parseFlowSource(flow(), 'demo.flow.yaml', projectKinds(registry));
    expect(parsed.problems).toEqual([]);
    const step = parsed.flow!.steps.rate!;
    expect(kindOf(step)).toBe(kind);
    expect(canonicalJson(step)).toBe(
      '{"next":"thanks","question":"Rate us, {{name}}","save":"stars","type":"rating"}',
    );
    expect(Object.keys(step)).not.toContain('kind');
    // Without the project's kinds, the step is an unknown type.
    const alone = parseFlowSource(flow(), 'demo.flow.yaml');
    expect(alone.problems.map((p) => p.message)).toEqual(['steps.rate.type: unknown step type "rating"']);
  });

  it('walks its texts and ways out; the graph knows the variable it sets and its type', () => {
    const r = compile(flow().replace('Thanks for {{stars}}', 'Thanks for {{stars.nope}}'));
    // `stars` is typed from the kind's `sets` (a whole number), so a field of it is an error.
    expect(r.lines).toEqual(['demo.flow.yaml:15:24: error: "stars" is a number: it has no field "nope"']);
    expect(compile(flow()).problems).toEqual([]);
    // A variable the question reads before anything sets it.
    const early = compile(flow('    question: "Rate us, {{nobody}}"\n    save: stars\n    next: thanks\n'));
    expect(early.lines).toEqual(['demo.flow.yaml:10:27: warning: unknown variable "nobody" in {{nobody}}']);
    // A way out to a step that does not exist.
    const lost = compile(flow('    question: q\n    save: stars\n    next: thanx\n'));
    expect(lost.lines).toEqual([
      'demo.flow.yaml:12:11: error: unknown step "thanx"',
      'demo.flow.yaml:13:3: warning: step "thanks" is unreachable',
    ]);
    expect(lost.hints.join(' ')).toContain('thanks');
  });

  it("checks a kind's declared reads: a variable read before it is set", () => {
    const spy = defineStepKind({
      type: 'spy',
      summary: 'reads a variable',
      fields: z.object({ watch: z.string() }),
      exits: { next: 'after' },
      reads: (s) => [s.watch],
      show: () => ({ text: 'x' }),
    });
    const src = `flow: demo
start: s
steps:
  s:
    type: spy
    watch: missing_var
    next: e
  e: { type: end }
`;
    const r = compile(src, defineRegistry({ kinds: [spy] }));
    expect(r.lines).toEqual(['demo.flow.yaml:5:11: warning: unknown variable "missing_var"']);
    // Set before the step (by the step before it), the read is fine.
    const set = src.replace(
      '  s:\n',
      '  s0:\n    type: message\n    set: { missing_var: 1 }\n    next: s\n  s:\n',
    );
    expect(compile(set.replace('start: s', 'start: s0'), defineRegistry({ kinds: [spy] })).lines).toEqual([]);
  });
});

describe('botflow check on a rating step', () => {
  it('reports a misspelt field at file:line:col with did-you-mean', () => {
    const r = compile(flow('    qestion: "Rate us"\n    save: stars\n    next: thanks\n'));
    expect(r.lines).toEqual([
      'demo.flow.yaml:8:3: error: steps.rate.question: is required',
      'demo.flow.yaml:10:5: error: steps.rate: unknown key "qestion"',
    ]);
    expect(r.hints[1]).toBe('did you mean "question"?');
  });

  it('reports a wrong value with what the field takes, and a misspelt type with the kinds', () => {
    const r = compile(flow('    question: q\n    save: stars\n    max: 11\n    next: thanks\n'));
    expect(r.lines).toEqual([expect.stringMatching(/^demo\.flow\.yaml:12:10: error: steps\.rate\.max: /)]);
    const t = compile(flow().replace('type: rating', 'type: ratng'));
    expect(t.lines).toEqual(['demo.flow.yaml:9:11: error: steps.rate.type: unknown step type "ratng"']);
    expect(t.hints[0]).toBe(
      'did you mean "rating"? type is one of message, input, menu, wait, branch, call, end, handoff, rating',
    );
  });

  it('the `botflow check` command prints it from a folder with a TypeScript registry', () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-kind-'));
    writeFileSync(
      join(dir, 'registry.ts'),
      `import { defineRegistry } from '${process.cwd()}/src/flows/registry.ts';\nimport { rating } from '${process.cwd()}/flows/code/rating.ts';\nexport default defineRegistry({ kinds: [rating] });\n`,
    );
    writeFileSync(join(dir, 'demo.flow.yaml'), flow('    question: q\n    sav: stars\n    next: thanks\n'));
    const out = spawnSync('node', ['bin/botflow.js', 'check', dir], { encoding: 'utf8' });
    expect(out.status).toBe(1);
    expect(out.stdout + out.stderr).toContain('demo.flow.yaml:11:5: error: steps.rate: unknown key "sav"');
    expect(out.stdout + out.stderr).toContain('did you mean "save"?');
  });
});

describe('the schema and the version', () => {
  it("botflow schema's JSON Schema describes the kind's fields", () => {
    const text = JSON.stringify(flowJsonSchema(projectKinds(registry)));
    expect(text).toContain('"const":"rating"');
    expect(text).toContain('The variable that receives the rating (a whole number)');
    expect(JSON.stringify(flowJsonSchema())).not.toContain('"const":"rating"');
  });

  it("a kind's version is folded into the version of the flows that use it", () => {
    const v1 = compile(flow()).flows[0]!.version;
    const v2 = compile(flow(), defineRegistry({ kinds: [{ ...rating, version: 2 }] })).flows[0]!.version;
    expect(v2).not.toBe(v1);
    expect(compile(flow()).flows[0]!.version).toBe(v1);
    // A version pinned by running conversations rebuilds with the same kind, never with a changed one.
    const stored = compile(flow()).flows[0]!.source!;
    expect(rebuildFlow(stored, { registry }).version).toBe(v1);
    expect(() =>
      rebuildFlow(stored, { registry: defineRegistry({ kinds: [{ ...rating, version: 2 }] }) }),
    ).toThrow(/not the version sessions are pinned to/);
    const plain = 'flow: demo\nstart: e\nsteps:\n  e: { type: end }\n';
    expect(compile(plain).flows[0]!.version).toBe(compile(plain, defineRegistry({})).flows[0]!.version);
  });
});

describe('the rating kind, run', () => {
  const def = () => compile(flow()).flows[0]!;

  it('reads typed ratings: digits, words in English and Russian, stars', () => {
    expect(['4', '4/5', 'four', 'Четыре', '★★★★', '⭐⭐⭐⭐', '4 stars'].map(readRating)).toEqual([
      4, 4, 4, 4, 4, 4, 4,
    ]);
    expect(['great', '', '4 or 5'].map(readRating)).toEqual([undefined, undefined, undefined]);
  });

  it('coverage sees its ways out: the exit taken and the refusal', () => {
    expect(flowGraph('demo', def().machine).edges.filter((e) => e.from === 'rate')).toEqual([
      { from: 'rate', label: 'next', to: 'thanks' },
      { from: 'rate', label: 'refused' },
    ]);
  });

  it('shows its question and buttons; a press saves the rating and goes on', () => {
    const d = new Drive(def());
    expect(d.step).toBe('rate');
    expect(d.said).toEqual(['Rate us, Ann']);
    expect(d.keyboard).toEqual([
      [
        ['1', 'rate_1'],
        ['2', 'rate_2'],
        ['3', 'rate_3'],
        ['4', 'rate_4'],
        ['5', 'rate_5'],
      ],
    ]);
    d.press('rate_5');
    expect(d.vars.stars).toBe(5);
    expect(d.said).toEqual(['Thanks for 5 of 5']);
    expect(d.snapshot.status).toBe('done');
  });

  it('refuses what is no rating (the step waits), then takes "four"', () => {
    const d = new Drive(def());
    d.text('great');
    expect(d.step).toBe('rate');
    expect(d.said).toEqual(['Please rate from 1 to 5: press a button, or send a number like 4.']);
    expect(d.effects).toContainEqual({ kind: 'input.rejected' });
    d.text('four');
    expect(d.vars.stars).toBe(4);
    expect(d.said).toEqual(['Thanks for 4 of 5']);
  });

  it("answers in the person's locale, and a handler's unknown exit is the flow's failure", () => {
    const d = new Drive(def(), { locale: 'ru' });
    d.text('отлично');
    expect(d.said).toEqual(['Оцените от 1 до 5: нажмите кнопку или отправьте число, например 4.']);
    const broken = defineStepKind({ ...rating, onMessage: () => ({ goto: 'nowhere' as 'next' }) });
    const f = compile(flow(), defineRegistry({ kinds: [broken] })).flows[0]!;
    expect(() => new Drive(f).text('4')).toThrow(/none of its exits/);
  });

  it('an event and a timeout reach its handlers; its timer is armed on entry and cancelled on leaving', () => {
    const payment = defineStepKind({
      type: 'payment_wait',
      summary: 'Waits for a payment event, or gives up after its timeout',
      fields: z.object({ amount: z.number() }),
      exits: { paid: 'After the payment', late: 'When it did not come in time' },
      show: (step) => ({ text: `Pay ${step.amount} €` }),
      onEvent: (_step, event) => (event.name === 'paid' ? { goto: 'paid', say: 'Received.' } : undefined),
      onTimeout: () => ({ goto: 'late' }),
    });
    const src = `flow: demo
start: w
steps:
  w: { type: payment_wait, amount: 5, timeout: 10m, paid: ok, late: gone }
  ok: { type: end, say: Thanks }
  gone: { type: end, say: Too late }
`;
    const f = compile(src, defineRegistry({ kinds: [payment] })).flows[0]!;
    const d = new Drive(f);
    expect(d.said).toEqual(['Pay 5 €']);
    expect(d.effects).toContainEqual({ kind: 'timer.arm', name: 'w:timeout', delayMs: 600_000 });
    d.send({ type: 'event', name: 'other', payload: {} } as never);
    expect(d.step).toBe('w');
    d.send({ type: 'event', name: 'paid', payload: {} } as never);
    expect(d.said).toEqual(['Received.', 'Thanks']);
    expect(d.effects).toContainEqual({ kind: 'timer.cancel', name: 'w:timeout' });
    const t = new Drive(f);
    t.timer('w:timeout');
    expect(t.said).toEqual(['Too late']);
  });
});
