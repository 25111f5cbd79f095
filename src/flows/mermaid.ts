/**
 * `botflow graph`: a flow as a Mermaid state diagram, drawn from the compiled machine itself (so it
 * shows exactly what runs, including inlined calls, timers and global commands).
 */

import type { AnyStateMachine } from 'xstate';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { FAILED_STATE } from '../engine/step/failure.ts';

type Node = AnyStateMachine['root'];
type Guard = { type?: string; params?: Record<string, unknown> } | undefined;

const BACK_STATE = '__back';
const safe = (id: string) => id.replace(/[^A-Za-z0-9_]/g, '_');

function label(event: string, guard: Guard): string {
  const p = guard?.params ?? {};
  switch (guard?.type) {
    case 'button':
      return `button ${String(p.id)}`;
    case 'command':
      return `/${String(p.name)}`;
    case 'event':
      return `event ${String(p.name)}`;
    case 'timer':
      return String(p.name).endsWith(':idle') ? 'idle' : 'reminder';
    case 'answer':
      if (p.back) return 'valid answer (come back)';
      if (typeof p.when === 'string') return `valid answer, ${p.when}`;
      return Number(p.index) > 0 ? 'valid answer, otherwise' : 'valid answer';
    case 'taskFor':
      return event === 'task.done' ? 'done' : 'failed';
    case 'taskNext':
      return typeof p.when === 'string'
        ? `done, ${p.when}`
        : Number(p.index) > 0
          ? 'done, otherwise'
          : 'done';
    case 'taskFailed':
      return String(p.label ?? 'failed');
    case 'exhausted':
      return 'retries exhausted';
    case 'noChoices':
      return 'empty list';
    case 'cond':
      if (typeof p.when === 'string') return p.when;
      return Number(p.index) > 0 ? 'otherwise' : '';
    case 'returnTo':
      return `return to ${String(p.step)}`;
    default:
      return event === 'message' || event === 'command'
        ? 'text'
        : event.startsWith('xstate.') || event === 'always'
          ? ''
          : event;
  }
}

/**
 * One line of a flow's diagram, as data: the start, an end state, a block holding a called flow's own
 * diagram, a labelled transition, or a note ("reachable by /cancel from any step"). `botflow graph` prints
 * it as Mermaid; the playground's panel draws its top level.
 */
export type DiagramItem =
  | { kind: 'initial'; to: string }
  | { kind: 'final'; state: string }
  | { kind: 'block'; state: string; items: DiagramItem[] }
  | { kind: 'edge'; from: string; to: string; label: string }
  | { kind: 'note'; state: string; text: string };

/** The diagram of a compiled flow, read from its machine (state nodes, transitions, guards). */
export function flowDiagram(def: FlowDefinition): DiagramItem[] {
  const emit = (node: Node): DiagramItem[] => {
    const items: DiagramItem[] = [];
    // `__failed` (where a flow ends after a run-time failure) is plumbing too, reachable from any step.
    const states = (Object.values(node.states) as Node[]).filter((s) => s.key !== FAILED_STATE);
    if (node.initial?.target?.[0]) items.push({ kind: 'initial', to: safe(node.initial.target[0].key) });
    for (const s of states) {
      if (s.type === 'final') items.push({ kind: 'final', state: safe(s.key) });
      if (Object.keys(s.states).length) items.push({ kind: 'block', state: safe(s.key), items: emit(s) });
    }
    for (const s of [node, ...states]) {
      // come_back's __back state is plumbing: its answers are drawn straight to the steps it returns to.
      if (s.key === BACK_STATE) continue;
      const seen = new Set<string>();
      const all = [...s.transitions.entries()].flatMap(([event, ts]) => ts.map((t) => ({ event, t })));
      for (const t of s.always ?? []) all.push({ event: 'always', t });
      for (const { event, t } of all) {
        const direct = (t.target ?? []) as Node[];
        const targets = direct.flatMap((x) =>
          x.key === BACK_STATE ? (x.always ?? []).flatMap((b) => (b.target ?? []) as Node[]) : [x],
        );
        for (const target of targets) {
          if (target.key === s.key && s !== node) continue;
          if (s === node && event !== 'command') continue;
          const text = label(event, t.guard as Guard);
          const item: DiagramItem =
            s === node
              ? { kind: 'note', state: safe(target.key), text: `reachable by ${text} from any step` }
              : { kind: 'edge', from: safe(s.key), to: safe(target.key), label: text };
          const key = JSON.stringify(item);
          if (seen.has(key)) continue;
          seen.add(key);
          items.push(item);
        }
      }
    }
    return items;
  };
  return emit(def.machine.root as Node);
}

/** The flow's states and transitions as `stateDiagram-v2` text. */
export function flowToMermaid(def: FlowDefinition): string {
  const lines = ['stateDiagram-v2'];
  const print = (items: DiagramItem[], indent: string) => {
    for (const item of items) {
      if (item.kind === 'initial') lines.push(`${indent}[*] --> ${item.to}`);
      else if (item.kind === 'final') lines.push(`${indent}${item.state} --> [*]`);
      else if (item.kind === 'note') lines.push(`${indent}${item.state} : ${item.text}`);
      else if (item.kind === 'edge')
        lines.push(`${indent}${item.from} --> ${item.to}${item.label ? ` : ${item.label}` : ''}`);
      else {
        lines.push(`${indent}state ${item.state} {`);
        print(item.items, `${indent}  `);
        lines.push(`${indent}}`);
      }
    }
  };
  print(flowDiagram(def), '  ');
  return `${lines.join('\n')}\n`;
}
