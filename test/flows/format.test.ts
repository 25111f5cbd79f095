import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { projectKinds } from '../../src/flows/kinds/custom-adapter.ts';
import { compileSources, loadFlows, loadRegistry } from '../../src/flows/load.ts';
import { flowToMermaid } from '../../src/flows/mermaid.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { flowJsonSchema } from '../../src/flows/schema.ts';
import { Drive } from './drive.ts';

const registry = defineRegistry({
  guards: { vip: ({ vars, params }) => vars.tier === params.tier },
});

function compile(source: string): FlowDefinition {
  const r = compileSources([{ file: 'demo.flow.yaml', source }], registry, new Map());
  expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return r.flows[0]!;
}

describe('flow format details', () => {
  it('markdown escapes variables; choice, date and phone inputs parse and save', () => {
    const d = new Drive(
      compile(`flow: demo
start: plan
format: markdown
steps:
  plan:
    type: input
    say: Pick a plan
    input: choice
    columns: 2
    options: [{ id: basic, text: Basic }, { id: pro, text: Pro }, { id: team, text: Team }]
    retries: { max: 2, exhausted: { goto: bye } }
    save: plan
    next: born
  born:
    type: input
    say: Birthday?
    input: date
    retries: { max: 2, exhausted: { goto: bye } }
    save: born
    next: phone
  phone:
    type: input
    say: Phone?
    input: phone
    retries: { max: 2, exhausted: { goto: bye } }
    save: phone
    next: bye
  bye:
    type: end
    say: "*{{plan}}* {{born}} {{phone}} {{name}}"
`),
    );
    expect(d.keyboard).toEqual([
      [
        ['Basic', 'basic'],
        ['Pro', 'pro'],
      ],
      [['Team', 'team']],
    ]);
    d.text('PRO');
    expect(d.vars.plan).toBe('pro');
    d.text('31.02.2026');
    expect(d.step).toBe('born');
    d.text('29.02.2028');
    expect(d.vars.born).toBe('2028-02-29');
    d.text('+1 (555) 010-0000');
    expect(d.vars.phone).toBe('+15550100000');
    expect(d.said).toEqual(['*pro* 2028\\-02\\-29 \\+15550100000 ']);
  });

  it('branches with all/any/not and registered guards; button values are saved', () => {
    const def = compile(`flow: demo
start: tier
steps:
  tier:
    type: menu
    say: Tier?
    keyboard:
      - - { id: pick, value: gold, text: Gold, set: { chosen: true, tier: gold }, goto: route }
        - { id: pick2, value: grey, text: Grey, goto: route }
  route:
    type: branch
    cases:
      - { when: { all: [{ guard: vip, params: { tier: gold } }, { not: { var: chosen, exists: false } }] }, goto: gold }
      - { when: { any: [{ var: button_value, in: [grey, silver] }] }, goto: other }
    else: other
  gold: { type: end, say: "gold {{button_value}}" }
  other: { type: end, say: "other {{button_value}}" }
`);
    const a = new Drive(def);
    a.send({ type: 'button', button: 'pick', value: 'gold', callbackId: 'c' } as never);
    expect(a.said).toEqual(['gold gold']);
    const b = new Drive(def);
    b.send({ type: 'button', button: 'pick2', value: 'grey', callbackId: 'c' } as never);
    expect(b.said).toEqual(['other grey']);
  });

  it('media: URLs of images are sent as they are, paths are uploaded from the flows folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-media-'));
    writeFileSync(join(dir, 'terms.pdf'), '%PDF-1.4');
    const source = `flow: demo
start: pic
steps:
  pic: { type: message, say: Look, media: { image: "https://example.org/a.png" }, next: doc }
  doc: { type: end, say: Terms, media: { file: terms.pdf } }
`;
    const r = compileSources([{ file: 'demo.flow.yaml', source }], registry, new Map(), dir);
    expect(r.problems).toEqual([]);
    const d = new Drive(r.flows[0]!);
    expect(d.effects[0]).toMatchObject({
      kind: 'api',
      op: 'sendMessage',
      args: { text: 'Look', attachments: [{ type: 'image', payload: { url: 'https://example.org/a.png' } }] },
    });
    expect(d.effects[1]).toEqual({
      kind: 'upload_and_send',
      media: { type: 'file', source: join(dir, 'terms.pdf') },
      message: { text: 'Terms', attachments: [], format: 'html' },
    });
  });

  it('a step may share its flow id; global commands still work there', () => {
    const d = new Drive(
      compile(`flow: demo
start: demo
commands:
  stop: { say: Stopped, goto: bye }
steps:
  demo: { type: menu, say: Menu, keyboard: [[{ id: go, text: Go, goto: bye }]] }
  bye: { type: end }
`),
    );
    expect(d.said).toEqual(['Menu']);
    d.command('stop');
    expect(d.said).toEqual(['Stopped']);
    expect(d.snapshot.status).toBe('done');
  });

  it('graph: the Mermaid diagram names steps and labelled transitions', async () => {
    const { flows } = await loadFlows('flows');
    const text = flowToMermaid(flows.find((f) => f.id === 'signup')!);
    expect(text.startsWith('stateDiagram-v2\n')).toBe(true);
    expect(text).toContain('ask_age --> minor : valid answer, age < 18');
    expect(text).toContain('ask_age --> ask_email : valid answer, otherwise');
    expect(text).toContain('confirm --> done : button ok');
    expect(text).toContain('ask_name --> abandoned : idle');
    expect(text).toContain('cancelled : reachable by /cancel from any step');
    const booking = flowToMermaid(flows.find((f) => f.id === 'booking')!);
    expect(booking).toContain('find_slots --> ask_time : done');
    expect(booking).toContain('save --> find_slots : failed: slot_taken');
    expect(booking).toContain('save --> cancelled : failed');
    const cli = spawnSync(process.execPath, ['bin/botflow.js', 'graph', 'flows/settings.flow.yaml'], {
      encoding: 'utf8',
    });
    expect(cli.status).toBe(0);
    expect(cli.stdout).toContain('language --> main : button back');
  });

  it("schema: the committed flows/flow.schema.json is the current format (with the project's own kinds)", async () => {
    const committed = JSON.parse(readFileSync('flows/flow.schema.json', 'utf8'));
    const { registry } = await loadRegistry('flows');
    expect(committed).toEqual(JSON.parse(JSON.stringify(flowJsonSchema(projectKinds(registry)))));
    expect(Object.keys(committed.properties)).toContain('steps');
  });

  it('a registry that cannot be loaded is a problem, not a crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-registry-'));
    writeFileSync(join(dir, 'registry.js'), 'throw new Error("database unreachable");\n');
    writeFileSync(join(dir, 'demo.flow.yaml'), 'flow: demo\nstart: bye\nsteps:\n  bye: { type: end }\n');
    const r = await loadFlows(dir);
    expect(r.problems).toEqual([
      expect.objectContaining({
        line: 1,
        col: 1,
        severity: 'error',
        message: 'the registry cannot be loaded: database unreachable',
      }),
    ]);
    expect(r.flows.map((f) => f.id)).toEqual(['demo']);
  });
});
