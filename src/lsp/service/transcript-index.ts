/**
 * The index of a transcript file (`*.test.yaml`, one transcript per YAML document): the flow each one tests,
 * the step its `start_at` names, the labels it presses, the variables of its context, and its turns.
 */
import { isMap, isPair, isScalar, isSeq, type Node, parseAllDocuments, type Scalar } from 'yaml';
import type { FileIndex, Occurrence } from './model.ts';
import { linesOf } from './text.ts';

export interface TranscriptTurn {
  /** What the person does: `say: Ann`, `press: Edit age`, `start`. */
  label: string;
  start: number;
  end: number;
}

export interface TranscriptDoc {
  flow?: string;
  name?: string;
  start: number;
  end: number;
  turns: TranscriptTurn[];
}

export interface TranscriptIndex extends FileIndex {
  docs: TranscriptDoc[];
}

const str = (n: unknown): Scalar | undefined =>
  isScalar(n) && n.range && typeof n.value === 'string' ? (n as Scalar) : undefined;

function turnOf(item: Node, text: string): TranscriptTurn | undefined {
  if (!isMap(item) || !item.range) return undefined;
  const action = item.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) !== 'bot');
  if (!action || !isScalar(action.key)) return undefined;
  const key = String(action.key.value);
  const v = action.value as Node | null;
  const value = isScalar(v) ? String(v.value) : v?.range ? text.slice(v.range[0], v.range[1]) : '';
  return { label: `${key}: ${value}`.slice(0, 80), start: item.range[0], end: item.range[1] };
}

/** One transcript's names and turns. */
function indexDoc(contents: Node, text: string, out: Occurrence[]): TranscriptDoc {
  const doc: TranscriptDoc = { start: contents.range?.[0] ?? 0, end: contents.range?.[1] ?? 0, turns: [] };
  if (!isMap(contents)) return doc;
  const flow = str(contents.get('flow', true));
  const name = contents.get('name');
  if (flow) {
    doc.flow = flow.value as string;
    out.push({ kind: 'flow', name: doc.flow, start: flow.range![0], end: flow.range![1] });
  }
  if (typeof name === 'string') doc.name = name;
  const scope = doc.flow ? { scope: doc.flow } : {};
  const startAt = contents.get('start_at', true);
  const step = isMap(startAt) ? str(startAt.get('step', true)) : undefined;
  if (step)
    out.push({
      kind: 'step',
      name: step.value as string,
      start: step.range![0],
      end: step.range![1],
      ...scope,
    });
  const context = isMap(startAt) ? startAt.get('context', true) : undefined;
  if (isMap(context))
    for (const p of context.items)
      if (isScalar(p.key) && p.key.range)
        out.push({
          kind: 'variable',
          name: String(p.key.value),
          start: p.key.range[0],
          end: p.key.range[1],
          def: true,
          ...scope,
        });
  const turns = contents.get('turns', true);
  if (!isSeq(turns)) return doc;
  for (const item of turns.items) {
    const turn = turnOf(item as Node, text);
    if (turn) doc.turns.push(turn);
    const press = isMap(item) ? item.get('press', true) : undefined;
    const label = str(press) ?? (isMap(press) ? str(press.get('button', true)) : undefined);
    if (label)
      out.push({
        kind: 'button',
        name: label.value as string,
        start: label.range![0],
        end: label.range![1],
        ...scope,
      });
  }
  return doc;
}

/** Indexes a transcript file's text. */
export function indexTranscript(file: string, text: string): TranscriptIndex {
  const out: Occurrence[] = [];
  const docs: TranscriptDoc[] = [];
  for (const d of parseAllDocuments(text, { version: '1.2' })) {
    if (!('contents' in d) || !d.contents) continue;
    docs.push(indexDoc(d.contents as Node, text, out));
  }
  out.sort((a, b) => a.start - b.start);
  return { file, lines: linesOf(text), occurrences: out, docs };
}

/** The transcript an offset is in. */
export function docAt(ix: TranscriptIndex, offset: number): TranscriptDoc | undefined {
  return (
    ix.docs.find((d) => d.start <= offset && offset <= d.end) ?? ix.docs.findLast((d) => d.start <= offset)
  );
}
