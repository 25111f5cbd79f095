/**
 * Completion in a transcript: the labels the tested flow's buttons and options show (those of the keyboard
 * the bot sent last come first), its step ids after `step:`, flow ids after `flow:`, and the keys of a
 * transcript and of a turn.
 */
import { type CompletionItem, CompletionItemKind } from 'vscode-languageserver-types';
import { item, type Replace, stepItems } from './completion.ts';
import { cursorContext } from './context.ts';
import type { ProjectIndex } from './project-index.ts';
import { offsetAt, rangeOf } from './text.ts';
import { docAt, type TranscriptIndex } from './transcript-index.ts';

const TOP = ['flow', 'name', 'person', 'clock', 'start_at', 'tasks', 'http', 'turns'];
const ACTIONS = ['start', 'say', 'press', 'contact', 'location', 'file', 'stop', 'wait', 'event', 'bot'];

/** A label as the person sees it: a message id's text in the first catalog that has it. */
function shown(p: ProjectIndex, text: string, i18n: boolean): string {
  if (!i18n) return text;
  for (const c of p.catalogs) {
    const m = c.messages.get(text);
    if (m && !m.text.includes('{')) return m.text;
  }
  return text;
}

/** The labels of the keyboard written last above `offset` in the transcript (what the bot just offered). */
function lastKeyboard(text: string, from: number, offset: number): Set<string> {
  const above = text.slice(from, offset);
  const at = above.lastIndexOf('keyboard:');
  if (at < 0) return new Set();
  const rest = above.slice(at, above.indexOf('\n', at) < 0 ? undefined : above.indexOf('\n', at));
  return new Set(
    [...rest.matchAll(/"((?:[^"\\]|\\.)*)"|([^[\],"\s][^[\],"]*[^[\],"\s]|[^[\],"\s])/g)].map((m) =>
      (m[1] ?? m[2]!).trim(),
    ),
  );
}

function labelItems(
  p: ProjectIndex,
  ix: TranscriptIndex,
  flowId: string | undefined,
  offset: number,
  r: Replace,
) {
  const flow = flowId ? p.flowById(flowId) : undefined;
  if (!flow) return [];
  const doc = docAt(ix, offset);
  const offered = lastKeyboard(ix.lines.text, doc?.start ?? 0, offset);
  const seen = new Set<string>();
  const out: CompletionItem[] = [];
  for (const l of flow.labels) {
    const label = shown(p, l.text, flow.i18n);
    if (seen.has(label) || label.includes('{{')) continue;
    seen.add(label);
    const quoted = /^[\w][\w ]*$/.test(label) ? label : JSON.stringify(label);
    const it = item(r, quoted, CompletionItemKind.Value, l.step ? `button of ${l.step}` : 'button');
    out.push({ ...it, label, filterText: label, sortText: `${offered.has(label) ? 0 : 1}${label}` });
  }
  return out;
}

/** Completion in a transcript file at `at`. */
export function transcriptCompletion(
  p: ProjectIndex,
  ix: TranscriptIndex,
  at: { line: number; character: number },
) {
  const offset = offsetAt(ix.lines, at);
  const c = cursorContext(ix.lines, offset);
  if (!c || c.at === 'template') return [];
  const r = { range: rangeOf(ix.lines, c.from, offset) };
  if (c.at === 'key') {
    const keys = c.path.length === 0 ? TOP : c.path.at(-1) === 'turns' ? ACTIONS : [];
    return keys.map((k) => item(r, k, CompletionItemKind.Field));
  }
  const flowId = docAt(ix, offset)?.flow;
  if (c.key === 'press' || c.key === 'button') {
    const from = c.from - (/["']$/.test(ix.lines.text.slice(0, c.from)) ? 1 : 0);
    return labelItems(p, ix, flowId, offset, { range: rangeOf(ix.lines, from, offset) });
  }
  if (c.key === 'step') {
    const flow = flowId ? p.flowById(flowId) : undefined;
    return flow ? stepItems(flow, r) : [];
  }
  if (c.key === 'flow' && c.path.length === 0)
    return p.flows.filter((f) => f.flowId).map((f) => item(r, f.flowId!, CompletionItemKind.Module, 'flow'));
  return [];
}
