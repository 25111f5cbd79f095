/**
 * Reads transcript files: YAML 1.2, one transcript per document (`---` between them), checked by hand so
 * that every problem names the exact place (`file:line:col`) and what to write instead.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isMap, isPair, isScalar, LineCounter, type Node, parseAllDocuments } from 'yaml';
import { BotflowError } from '../errors/index.ts';
import { changeTo, lineSpan, type Problem, type Span } from '../flows/problems.ts';
import { Invalid, InvalidMany, type Path, toTranscript } from './parse-transcript.ts';
import type { Transcript } from './transcript.ts';

/** The file name ending of transcripts. */
export const TRANSCRIPT_SUFFIX = '.test.yaml';

/** Transcripts found in some files, and what is wrong with the others. */
export interface LoadedTranscripts {
  transcripts: Transcript[];
  problems: Problem[];
}

/** Every `*.test.yaml` under the given files and folders (recursively), sorted. */
export function findTranscriptFiles(paths: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    if (!existsSync(p)) throw new BotflowError('BOTFLOW_TEST_SETUP', `${p}: no such file or folder`);
    if (statSync(p).isDirectory()) {
      for (const name of readdirSync(p).sort()) {
        if (name === 'node_modules' || name.startsWith('.')) continue;
        walk(join(p, name));
      }
    } else if (p.endsWith(TRANSCRIPT_SUFFIX)) out.push(p);
  };
  for (const p of paths) walk(p);
  return [...new Set(out)].sort();
}

/**
 * Expands `dir/*.test.yaml`-style patterns (a `*` in the last part only) into the matching files;
 * other paths pass through.
 */
export function expandPaths(paths: string[]): string[] {
  return paths.flatMap((p) => {
    const slash = p.lastIndexOf('/');
    const dir = slash >= 0 ? p.slice(0, slash) : '.';
    const name = p.slice(slash + 1);
    if (!name.includes('*')) return [p];
    const re = new RegExp(`^${name.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
    return readdirSync(dir)
      .filter((f) => re.test(f))
      .sort()
      .map((f) => join(dir, f));
  });
}

/** Where a problem of a file that does not exist is. */
const NO_SPAN: Span = { line: 1, col: 1, endLine: 1, endCol: 1 };

/** Loads the transcripts of the given files and folders. */
export function loadTranscripts(paths: string[], cwd = process.cwd()): LoadedTranscripts {
  const result: LoadedTranscripts = { transcripts: [], problems: [] };
  const missing = paths.filter((p) => !existsSync(p));
  for (const p of missing) {
    result.problems.push({
      file: p,
      ...NO_SPAN,
      code: 'no-such-path',
      severity: 'error',
      message: 'no such file or folder',
    });
  }
  for (const file of findTranscriptFiles(paths.filter((p) => existsSync(p)))) {
    const shown = relative(cwd, file) || file;
    const parsed = parseTranscripts(readFileSync(file, 'utf8'), shown);
    result.transcripts.push(...parsed.transcripts);
    result.problems.push(...parsed.problems);
  }
  return result;
}

/** Parses the text of one transcript file. */
export function parseTranscripts(source: string, file: string): LoadedTranscripts {
  const lines = new LineCounter();
  const docs = parseAllDocuments(source, { lineCounter: lines, uniqueKeys: true, version: '1.2' });
  const result: LoadedTranscripts = { transcripts: [], problems: [] };
  const list = Array.isArray(docs) ? docs : [];
  if (!Array.isArray(docs)) {
    result.problems.push({
      file,
      ...lineSpan(source, 1),
      code: 'yaml-syntax',
      severity: 'error',
      message: 'not a YAML document',
    });
  }
  for (const doc of list) {
    const at = (offset: number) => lines.linePos(offset);
    const span = (start: number, end: number): Span => {
      const [s, e] = [at(start), at(Math.max(start, end))];
      return { line: s.line, col: s.col, endLine: e.line, endCol: e.col };
    };
    if (doc.errors.length) {
      for (const e of doc.errors) {
        const message = `YAML syntax: ${e.message.split('\n')[0]}`;
        result.problems.push({
          file,
          ...span(e.pos[0], e.pos[1]),
          code: 'yaml-syntax',
          severity: 'error',
          message,
          hint: 'check indentation and quotes',
        });
      }
      continue;
    }
    if (doc.contents === null) continue;
    const locate = (path: Path, key = false): Span => {
      const [start = 0, valueEnd = start] = nodeAt(doc.contents as Node, path, key)?.range ?? [];
      // A mapping or a list is underlined on its first line only.
      const newline = source.indexOf('\n', start);
      return span(start, newline >= 0 && newline < valueEnd ? newline : valueEnd);
    };
    try {
      result.transcripts.push(toTranscript(doc.toJS(), file, (p) => locate(p).line));
    } catch (error) {
      const all = error instanceof InvalidMany ? error.all : error instanceof Invalid ? [error] : undefined;
      if (!all) throw error;
      for (const x of all) {
        const unknownKey = x.message.startsWith('unknown key');
        const where = locate(x.path, unknownKey);
        const fixes = x.change === undefined ? undefined : [changeTo(file, where, x.change)];
        result.problems.push({
          file,
          ...where,
          code: unknownKey ? 'unknown-key' : 'transcript',
          severity: 'error',
          message: x.message,
          hint: x.hint,
          ...(fixes ? { fixes } : {}),
        });
      }
    }
  }
  return result;
}

function nodeAt(root: Node, path: Path, key: boolean): Node | undefined {
  let node: unknown = root;
  let best: Node | undefined = root;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      if (key && seg === path[path.length - 1]) return pair.key as Node;
      node = pair.value;
    } else if (node && typeof node === 'object' && 'items' in node && typeof seg === 'number') {
      const item = (node as { items: unknown[] }).items[seg];
      if (!item) break;
      node = isPair(item) ? item.value : item;
    } else break;
    best = (node as Node) ?? best;
  }
  return best;
}
