/**
 * `botflow graph`: a flow as a Mermaid state diagram, drawn from the compiled machine itself (so it
 * shows exactly what runs, including inlined calls, timers and global commands).
 */
import type { AnyStateMachine } from 'xstate';
import type { FlowDefinition } from '../engine/step/contract.ts';

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
    case 'timer':
      return String(p.name).endsWith(':idle') ? 'idle' : 'reminder';
    case 'answer':
      if (p.back) return 'valid answer (come back)';
      return p.index === undefined ? 'valid answer' : `valid answer [${String(p.index)}]`;
    case 'exhausted':
      return 'retries exhausted';
    case 'cond':
      return p.index === undefined ? '' : `case ${String(p.index)}`;
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

/** The flow's states and transitions as `stateDiagram-v2` text. */
export function flowToMermaid(def: FlowDefinition): string {
  const lines = ['stateDiagram-v2'];
  const root = def.machine.root as Node;
  const emit = (node: Node, indent: string) => {
    const states = Object.values(node.states) as Node[];
    if (node.initial?.target?.[0]) lines.push(`${indent}[*] --> ${safe(node.initial.target[0].key)}`);
    for (const s of states) {
      if (s.type === 'final') lines.push(`${indent}${safe(s.key)} --> [*]`);
      if (Object.keys(s.states).length) {
        lines.push(`${indent}state ${safe(s.key)} {`);
        emit(s, `${indent}  `);
        lines.push(`${indent}}`);
      }
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
          const from = s === node ? '[*]' : safe(s.key);
          if (s === node && event !== 'command') continue;
          const text = s === node ? label(event, t.guard as Guard) : label(event, t.guard as Guard);
          const line = `${indent}${s === node ? 'note' : from} --> ${safe(target.key)}${text ? ` : ${text}` : ''}`;
          if (s === node) {
            const note = `${indent}${safe(target.key)} : reachable by ${text} from any step`;
            if (!seen.has(note)) lines.push(note);
            seen.add(note);
          } else if (!seen.has(line)) {
            seen.add(line);
            lines.push(line);
          }
        }
      }
      if (s === node) continue;
    }
  };
  emit(root, '  ');
  return `${lines.join('\n')}\n`;
}
