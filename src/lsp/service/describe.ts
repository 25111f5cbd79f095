/** Short descriptions the completion and the hover share: a step, a variable, a message, a registry entry. */
import { z } from 'zod';
import type { Registry } from '../../flows/registry.ts';
import { describeType } from '../../flows/var-types.ts';
import type { FlowIndex } from './flow-index.ts';
import type { ProjectIndex } from './project-index.ts';

/** A step's kind and text. */
export function stepDoc(flow: FlowIndex, id: string): string | undefined {
  const s = flow.steps.get(id);
  if (!s) return undefined;
  return [
    `**${id}** (${s.type || 'no type'}) in flow \`${flow.flowId ?? flow.file}\``,
    s.say && `> ${messageText(s.say)}`,
  ]
    .filter(Boolean)
    .join('\n\n');
}

const messageText = (t: string) => t.replace(/\n/g, '\n> ');

/** Where a variable is set in a flow: the steps (or flow parts) that save or set it. */
export function setters(flow: FlowIndex, name: string): string[] {
  const where = new Set<string>();
  for (const o of flow.occurrences)
    if (o.kind === 'variable' && o.def && o.name === name)
      where.add(o.step ?? (flow.flow?.computed?.[name] ? 'computed' : 'the flow'));
  return [...where];
}

/** A variable's type and where it is set. */
export function variableDoc(flow: FlowIndex, name: string): string {
  const t = flow.types.get(name);
  const set = setters(flow, name);
  const where = set.length
    ? `set in ${set.map((s) => `\`${s}\``).join(', ')}`
    : 'set by botflow or a calling flow';
  return `**${name}**: ${t ? describeType(t) : 'unknown'}\n\n${where}`;
}

/** A message's text in every locale. */
export function messageDoc(p: ProjectIndex, id: string): string | undefined {
  const rows = p.catalogs.flatMap((c) => {
    const m = c.messages.get(id);
    return m ? [`**${c.locale}**: ${m.text}`] : [];
  });
  return rows.length ? rows.join('\n\n') : undefined;
}

/** A zod schema as JSON Schema (for a task's input and result), or nothing when it cannot be shown. */
function jsonOf(schema: unknown): string | undefined {
  if (!schema) return undefined;
  try {
    const { $schema: _, ...rest } = z.toJSONSchema(schema as z.ZodType, { unrepresentable: 'any' }) as Record<
      string,
      unknown
    >;
    return JSON.stringify(rest, null, 2);
  } catch {
    return undefined;
  }
}

/** A task: a plain function, or its input and result schemas. */
export function taskDoc(registry: Registry, name: string): string | undefined {
  const t = registry.tasks?.[name];
  if (!t) return undefined;
  if (typeof t === 'function') return `**task ${name}**: a function (its input and result are not declared)`;
  const part = (label: string, s: unknown) => {
    const j = jsonOf(s);
    return j ? `${label}:\n\`\`\`json\n${j}\n\`\`\`` : `${label}: not declared`;
  };
  return [`**task ${name}**`, part('input', t.input), part('result', t.result)].join('\n\n');
}

/** What a name of the registry is. */
export function registryDoc(
  registry: Registry,
  kind: 'task' | 'effect' | 'guard' | 'validator',
  name: string,
) {
  if (kind === 'task') return taskDoc(registry, name);
  const list =
    kind === 'effect' ? registry.effects : kind === 'guard' ? registry.guards : registry.validators;
  return Object.hasOwn(list, name) ? `**${kind} ${name}** (from the registry)` : undefined;
}
