/**
 * Go to definition and find references: a goto to its step, a `call:` to its flow, a message id to its
 * entry in each catalog, a variable to where it is set, a task, validator, guard or effect to its name in
 * the registry's source; references are every place the same thing is written.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Location } from 'vscode-languageserver-types';
import type { Found, Place } from './lookup.ts';
import { placesOf } from './lookup.ts';
import type { ProjectIndex } from './project-index.ts';
import { linesOf, rangeOf } from './text.ts';

export const locationOf = (place: Place): Location => ({
  uri: pathToFileURL(place.index.file).href,
  range: rangeOf(place.index.lines, place.occurrence.start, place.occurrence.end),
});

/** Where a source names `name` as a property (`name:`, `name(`, `'name':`, `{ name }`), if it does. */
function propertyIn(file: string, text: string, name: string): Location | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(^|[\\s{,])(['"]?)(${escaped})\\2\\s*(:|\\(|,|\\n|\\})`, 'm').exec(text);
  if (!m) return undefined;
  const start = m.index + m[1]!.length + m[2]!.length;
  return { uri: pathToFileURL(file).href, range: rangeOf(linesOf(text), start, start + name.length) };
}

/** The registry's source, then the project files it imports (`./code/booking.ts`), two levels deep. */
function inRegistry(p: ProjectIndex, name: string): Location[] {
  const src = p.project.registryFile;
  if (!src) return [];
  const seen = new Set<string>();
  const search = (file: string, text: string, depth: number): Location | undefined => {
    if (seen.has(file)) return undefined;
    seen.add(file);
    const here = propertyIn(file, text, name);
    if (here || depth === 0) return here;
    for (const m of text.matchAll(/from\s+['"](\.[^'"]+)['"]/g)) {
      const next = resolve(dirname(file), m[1]!);
      let body: string;
      try {
        body = readFileSync(next, 'utf8');
      } catch {
        continue;
      }
      const found = search(next, body, depth - 1);
      if (found) return found;
    }
    return undefined;
  };
  const found = search(src.file, src.text, 2);
  return found ? [found] : [];
}

export function definitionsOf(p: ProjectIndex, f: Found): Location[] {
  const o = f.occurrence;
  if (o.kind === 'task' || o.kind === 'effect' || o.kind === 'guard' || o.kind === 'validator')
    return inRegistry(p, o.name);
  if (o.kind === 'flow') {
    const flow = p.flowById(o.name);
    const def = flow?.occurrences.find((x) => x.kind === 'flow' && x.def);
    return flow && def ? [locationOf({ index: flow, occurrence: def })] : [];
  }
  if (o.kind === 'button')
    return placesOf(p, f)
      .filter((x) => 'steps' in x.index)
      .map(locationOf);
  if (o.kind === 'step' || o.kind === 'variable' || o.kind === 'message')
    return placesOf(p, f)
      .filter((x) => x.occurrence.def && (o.kind !== 'variable' || 'steps' in x.index))
      .map(locationOf);
  return [];
}

export function referencesOf(p: ProjectIndex, f: Found, includeDeclaration: boolean): Location[] {
  return placesOf(p, f)
    .filter((x) => includeDeclaration || !x.occurrence.def)
    .map(locationOf);
}
