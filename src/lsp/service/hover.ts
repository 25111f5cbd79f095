/**
 * Hover: a key's documentation (its kind's schema), a message id's text in every locale, a variable's
 * type and the steps that set it, a step's kind and text, a task's input and result schemas, a kind's
 * summary.
 */
import type { Hover } from 'vscode-languageserver-types';
import { messageDoc, registryDoc, stepDoc, variableDoc } from './describe.ts';
import { fieldDoc, kindDocs } from './fields.ts';
import type { Found } from './lookup.ts';
import type { ProjectIndex } from './project-index.ts';
import { rangeOf } from './text.ts';

function field(p: ProjectIndex, f: Found): string | undefined {
  const o = f.occurrence;
  if (f.file.type !== 'flow') return undefined;
  const kind = o.scope === 'step' ? f.file.index.steps.get(o.step ?? '')?.type : 'flow';
  const doc = kind ? fieldDoc(p.project.registry, kind, o.name, o.keys) : undefined;
  if (!doc) return undefined;
  const whole = kind === 'flow' ? 'a flow file' : `${/^[aeiou]/.test(kind ?? '') ? 'an' : 'a'} ${kind} step`;
  const where = o.keys?.length ? `${o.keys.join('.')} of ${whole}` : whole;
  return `**${o.name}** (${where}${doc.required ? ', required' : ''})${doc.description ? `\n\n${doc.description}` : ''}`;
}

/** The markdown a hover shows for what was found. */
function textOf(p: ProjectIndex, f: Found): string | undefined {
  const o = f.occurrence;
  const registry = p.project.registry;
  switch (o.kind) {
    case 'field':
      return field(p, f);
    case 'step':
      return f.flow ? stepDoc(f.flow, o.name) : undefined;
    case 'variable':
      return f.flow ? variableDoc(f.flow, o.name) : undefined;
    case 'message':
      return messageDoc(p, o.name) ?? `no message \`${o.name}\` in the catalogs`;
    case 'task':
    case 'effect':
    case 'guard':
    case 'validator':
      return registryDoc(registry, o.kind, o.name);
    case 'kind': {
      const k = kindDocs(registry).get(o.name);
      return k ? `**${k.type}**${k.project ? " (the project's own kind)" : ''}: ${k.summary}` : undefined;
    }
    case 'button': {
      const offered = f.flow?.labels
        .filter((l) => l.text === o.name)
        .map((l) => `\`${l.step ?? 'the flow'}\``);
      return offered?.length
        ? `a button of ${[...new Set(offered)].join(', ')} in flow \`${f.flow!.flowId}\``
        : `no step of flow \`${f.flow?.flowId ?? '?'}\` offers "${o.name}"`;
    }
    case 'flow': {
      const flow = p.flowById(o.name);
      return flow ? `**flow ${o.name}**: ${flow.steps.size} steps (${flow.file})` : undefined;
    }
    default:
      return undefined;
  }
}

export function hoverOf(p: ProjectIndex, f: Found): Hover | null {
  const value = textOf(p, f);
  if (!value) return null;
  const lines = f.file.index.lines;
  return {
    contents: { kind: 'markdown', value },
    range: rangeOf(lines, f.occurrence.start, f.occurrence.end),
  };
}
