/**
 * Completion: what may be written at the cursor, from the project's index (step ids, flow ids, variables,
 * message ids, the registry's names, events, kinds and their fields) and, in a transcript, the labels the
 * flow's steps offer and its step ids.
 */
import { type CompletionItem, CompletionItemKind, type Range } from 'vscode-languageserver-types';
import { BUILTIN_VARS } from '../../flows/data-flow.ts';
import { type CursorContext, cursorContext } from './context.ts';
import { messageDoc, registryDoc, stepDoc, variableDoc } from './describe.ts';
import { fieldsAt, kindDocs, valuesAt } from './fields.ts';
import type { FlowIndex } from './flow-index.ts';
import { STEP_KEYS } from './model.ts';
import type { ProjectIndex } from './project-index.ts';
import { type Lines, rangeOf } from './text.ts';

const TEXT_KEYS = new Set(['say', 'text', 'error', 'notify', 'ignore']);

const md = (value: string) => ({ kind: 'markdown' as const, value });

export interface Replace {
  range: Range;
}

/** An item that replaces what was typed of it. */
export function item(
  r: Replace,
  label: string,
  kind: CompletionItemKind,
  detail?: string,
  doc?: string,
): CompletionItem {
  return {
    label,
    kind,
    textEdit: { range: r.range, newText: label },
    ...(detail ? { detail } : {}),
    ...(doc ? { documentation: md(doc) } : {}),
  };
}

export function stepItems(flow: FlowIndex, r: Replace): CompletionItem[] {
  return [...flow.steps.values()].map((s) =>
    item(r, s.id, CompletionItemKind.Reference, s.type, stepDoc(flow, s.id)),
  );
}

/** The flow's variables (its own first, then botflow's), with their types and where they are set. */
function variableItems(flow: FlowIndex, r: Replace): CompletionItem[] {
  return [...flow.types.keys()].map((v) => {
    const doc = variableDoc(flow, v);
    const own = v in BUILTIN_VARS ? 1 : 0;
    const it = item(r, v, CompletionItemKind.Variable, doc.split('\n')[0]!.replace(/\*\*/g, ''), doc);
    return { ...it, sortText: `${own}${v}` };
  });
}

function registryItems(p: ProjectIndex, kind: 'task' | 'effect' | 'guard' | 'validator', r: Replace) {
  const reg = p.project.registry;
  const list =
    kind === 'task'
      ? (reg.tasks ?? {})
      : kind === 'effect'
        ? reg.effects
        : kind === 'guard'
          ? reg.guards
          : reg.validators;
  return Object.keys(list).map((n) =>
    item(r, n, CompletionItemKind.Function, kind, registryDoc(reg, kind, n)),
  );
}

function messageItems(p: ProjectIndex, r: Replace): CompletionItem[] {
  const ids = new Set(p.catalogs.flatMap((c) => [...c.messages.keys()]));
  return [...ids].map((id) => {
    const doc = messageDoc(p, id);
    return item(r, id, CompletionItemKind.Text, doc?.split('\n')[0]?.replace(/\*\*/g, ''), doc);
  });
}

function eventItems(p: ProjectIndex, r: Replace): CompletionItem[] {
  const names = new Set([
    ...p.flows.flatMap((f) => [...f.events]),
    ...Object.keys(p.project.registry.events ?? {}),
  ]);
  return [...names].map((n) => item(r, n, CompletionItemKind.Event, 'event'));
}

/** The keys the mapping at the cursor accepts (a step's by its kind, the flow's), those not written yet. */
function fieldItems(p: ProjectIndex, flow: FlowIndex, c: CursorContext & { at: 'key' }, r: Replace) {
  const { path } = c;
  if (path.at(-1) === 'on_event') return eventItems(p, r);
  if (path.at(-1) === 'intents')
    return [...flow.intents].map((n) => item(r, n, CompletionItemKind.EnumMember, 'intent'));
  const inStep = path[0] === 'steps';
  if (inStep && path.length < 2) return [];
  const kind = inStep ? (flow.steps.get(path[1]!)?.type ?? '') : 'flow';
  const fields = fieldsAt(p.project.registry, kind, path.slice(inStep ? 2 : 0));
  return fields
    .filter((f) => !c.siblings.has(f.name))
    .map((f) =>
      item(r, f.name, CompletionItemKind.Field, f.required ? 'required' : undefined, f.description),
    );
}

/** The value of a key, by what the key is. */
function valueItems(p: ProjectIndex, flow: FlowIndex, c: CursorContext & { at: 'value' }, r: Replace) {
  const { key } = c;
  if (c.expression) return variableItems(flow, r);
  if (STEP_KEYS.has(key) || flow.stepKeys.has(key)) return stepItems(flow, r);
  if (key === 'call' || (key === 'flow' && c.path[0] === 'steps'))
    return p.flows
      .filter((f) => f.flowId)
      .map((f) => item(r, f.flowId!, CompletionItemKind.Module, 'flow', f.file));
  if (key === 'type' && c.path[0] === 'steps' && c.path.length === 2)
    return [...kindDocs(p.project.registry).values()].map((k) =>
      item(r, k.type, CompletionItemKind.Class, k.project ? 'project kind' : 'kind', k.summary),
    );
  if (key === 'task' || key === 'effect' || key === 'guard') return registryItems(p, key, r);
  if (key === 'rule') return registryItems(p, 'validator', r);
  if (key === 'event') return eventItems(p, r);
  if (key === 'save' || key === 'save_as' || key === 'list') return variableItems(flow, r);
  if (flow.i18n && (TEXT_KEYS.has(key) || flow.textKeys.has(key))) return messageItems(p, r);
  // A closed list of values from the schema: `input: text`, `render: edit`, `format: html`.
  const inStep = c.path[0] === 'steps';
  if (inStep && c.path.length < 2) return [];
  const kind = inStep ? (flow.steps.get(c.path[1]!)?.type ?? '') : 'flow';
  return valuesAt(p.project.registry, kind, c.path.slice(inStep ? 2 : 0), key).map((v) =>
    item(r, v, CompletionItemKind.EnumMember, key),
  );
}

/** Completion in a flow file at `offset`. */
export function flowCompletion(
  p: ProjectIndex,
  flow: FlowIndex,
  lines: Lines,
  offset: number,
): CompletionItem[] {
  const c = cursorContext(lines, offset);
  if (!c) return [];
  const r = { range: rangeOf(lines, c.from, offset) };
  if (c.at === 'template') return variableItems(flow, r);
  if (c.at === 'key') return fieldItems(p, flow, c, r);
  return valueItems(p, flow, c, r);
}
