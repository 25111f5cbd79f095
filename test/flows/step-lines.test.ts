// Where each step of a flow file is written, for the playground's graph: the step's key line and its lines,
// from the source stored with the compiled flow; trailing comments and blank lines left out; flows without
// a stored source list nothing.
import { expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { stepLines } from '../../src/flows/step-lines.ts';

const FILE = `flow: two
start: a
triggers: [{ bot_started: true }]
steps:
  a:
    type: input
    say: "Name?"
    input: text
    retries: { max: 2, exhausted: { goto: b } }
    save: name
    next: b

  # the end
  b: { type: end, say: Bye. }
texts:
  error-text: "Text, please."
`;

it('finds every step of the flow file with its first line and its lines', () => {
  const [flow] = compileSources(
    [{ file: 'flows/two.flow.yaml', source: FILE }],
    EMPTY_REGISTRY,
    new Map(),
  ).flows;
  const lines = stepLines(flow!.source);
  expect(Object.keys(lines)).toEqual(['a', 'b']);
  expect(lines.a).toEqual({
    file: 'flows/two.flow.yaml',
    line: 5,
    text: '  a:\n    type: input\n    say: "Name?"\n    input: text\n    retries: { max: 2, exhausted: { goto: b } }\n    save: name\n    next: b',
  });
  expect(lines.b).toEqual({ file: 'flows/two.flow.yaml', line: 14, text: '  b: { type: end, say: Bye. }' });
  expect(stepLines(undefined)).toEqual({});
  expect(stepLines('not json')).toEqual({});
});
