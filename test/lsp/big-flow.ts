/**
 * A generated project for the language service's benchmark: a 300-step flow with every kind of step, about
 * 100 variables, its texts as `.ftl` ids, and a `call:` into a second flow.
 */
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import type { ProjectSnapshot } from '../../src/lsp/language-service.ts';

const KINDS = ['input', 'menu', 'message', 'branch', 'wait', 'call', 'handoff'] as const;

/** Step `i` of the big flow (its kind cycles through KINDS); every step goes on to step i + 1. */
function step(i: number, ids: string[]): string {
  const id = `s${i}`;
  const next = i + 1 < 299 ? `s${i + 1}` : 'finish';
  const v = `v${i % 100}`;
  switch (KINDS[i % KINDS.length]) {
    case 'input':
      ids.push(`m-${i}`);
      return `  ${id}:\n    type: input\n    say: m-${i}\n    input: text\n    retries: { max: 3, exhausted: { goto: finish } }\n    save: ${v}\n    next: ${next}\n`;
    case 'menu':
      ids.push(`m-${i}`, `b-${i}`);
      return `  ${id}:\n    type: menu\n    say: m-${i}\n    keyboard:\n      - - { id: go, text: b-${i}, goto: ${next}, set: { ${v}: "picked" } }\n`;
    case 'message':
      ids.push(`m-${i}`);
      return `  ${id}:\n    type: message\n    say: m-${i}\n    set: { ${v}: "= 1 + 2" }\n    next: ${next}\n`;
    case 'branch':
      return `  ${id}:\n    type: branch\n    cases:\n      - { when: { var: v${(i + 1) % 100}, exists: true }, goto: ${next} }\n    else: ${next}\n`;
    case 'wait':
      ids.push(`m-${i}`);
      return `  ${id}:\n    type: wait\n    say: m-${i}\n    on_event:\n      paid: { save_as: ${v}, goto: ${next} }\n`;
    case 'call':
      return `  ${id}:\n    type: call\n    flow: small\n    with: { ${v}: "{{v0}}" }\n    next: ${next}\n`;
    default:
      return `  ${id}:\n    type: handoff\n    return_to: ${next}\n`;
  }
}

/** The big flow's text and the message ids it uses. */
export function bigFlow(): { text: string; ids: string[] } {
  const ids: string[] = ['m-finish'];
  const steps = Array.from({ length: 299 }, (_, i) => step(i, ids)).join('\n');
  const head =
    'flow: big\ni18n: { default_locale: en }\nhandoff: { operators_chat: -100123 }\nstart: s0\nevents:\n  paid: {}\nsteps:\n';
  return { text: `${head}${steps}\n  finish:\n    type: end\n    say: m-finish\n`, ids };
}

const SMALL =
  'flow: small\nstart: hello\nsteps:\n  hello:\n    type: end\n    say: "Hello from the small flow"\n';

/** The generated project (files under `root`). */
export function bigProject(root = '/tmp/big-project'): ProjectSnapshot {
  const { text, ids } = bigFlow();
  return {
    root,
    flows: [
      { file: `${root}/flows/big.flow.yaml`, text },
      { file: `${root}/flows/small.flow.yaml`, text: SMALL },
    ],
    catalogs: [
      {
        file: `${root}/flows/locales/en.ftl`,
        locale: 'en',
        text: ids.map((id) => `${id} = Text of ${id}\n`).join(''),
      },
    ],
    transcripts: [],
    registry: EMPTY_REGISTRY,
  };
}
