/**
 * Rename a step id (in its flow and the transcripts that test it) or a variable (in the flows that share
 * it: a flow and those it calls or is called from, and their transcripts' `start_at` contexts). A new name
 * that is not an id, or that the flow already uses, is refused.
 */
import { pathToFileURL } from 'node:url';
import type { Range, TextEdit, WorkspaceEdit } from 'vscode-languageserver-types';
import type { Found } from './lookup.ts';
import { placesOf } from './lookup.ts';
import type { ProjectIndex } from './project-index.ts';
import { rangeOf } from './text.ts';

const ID = /^[A-Za-z][A-Za-z0-9_]*$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What a rename at the place found would rename. */
export function renamable(f: Found | undefined): f is Found {
  const o = f?.occurrence;
  return !!o && !!f.flow && (o.kind === 'step' || o.kind === 'variable');
}

export function prepare(f: Found | undefined): { range: Range; placeholder: string } | null {
  if (!renamable(f)) return null;
  const o = f.occurrence;
  return { range: rangeOf(f.file.index.lines, o.start, o.end), placeholder: o.name };
}

/** Whether `name` is free for what was found. */
function free(p: ProjectIndex, f: Found, name: string): boolean {
  const o = f.occurrence;
  if (o.kind === 'step') return ID.test(name) && !f.flow!.steps.has(name);
  if (!VARIABLE.test(name)) return false;
  const taken = placesOf(p, { ...f, occurrence: { ...o, name } });
  return taken.length === 0 && !f.flow!.types.has(name);
}

export function renameAt(p: ProjectIndex, f: Found | undefined, name: string): WorkspaceEdit | null {
  if (!renamable(f) || name === f.occurrence.name || !free(p, f, name)) return null;
  const changes: Record<string, TextEdit[]> = {};
  for (const place of placesOf(p, f)) {
    const uri = pathToFileURL(place.index.file).href;
    const range = rangeOf(place.index.lines, place.occurrence.start, place.occurrence.end);
    const text = place.index.lines.text.slice(place.occurrence.start, place.occurrence.end);
    // A name inside a quoted scalar, a {{template}} or an expression is replaced where it is written.
    const at = text.indexOf(f.occurrence.name);
    const exact =
      at >= 0
        ? rangeOf(
            place.index.lines,
            place.occurrence.start + at,
            place.occurrence.start + at + f.occurrence.name.length,
          )
        : range;
    changes[uri] = [...(changes[uri] ?? []), { range: exact, newText: name }];
  }
  return { changes };
}
