/**
 * Reads a flow file: YAML 1.2 with line counting, validated against the zod schema, every problem
 * mapped back to `file:line:col`. Anchors, aliases and merge keys are refused to keep errors local.
 */
import { isMap, isPair, isScalar, LineCounter, type Node, parseDocument, visit } from 'yaml';
import type { z } from 'zod';
import { closest, type Problem } from './problems.ts';
import { FlowFile } from './schema.ts';

export type Path = readonly (string | number)[];

/** Finds the line and column of a value (or of its key, with `key: true`) in a parsed document. */
export interface Locator {
  at(path: Path, key?: boolean): { line: number; col: number };
}

export interface ParsedFlowFile {
  flow?: FlowFile;
  /** The document as plain data (even when the schema rejected it). */
  data?: unknown;
  problems: Problem[];
  locate: Locator;
}

/** Parses and validates one flow file's text. */
export function parseFlowSource(source: string, file: string): ParsedFlowFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true, version: '1.2' });
  const pos = (offset: number) => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, col: p.col };
  };
  const locate: Locator = {
    at(path, key) {
      let node: unknown = doc.contents;
      let best: Node | undefined = doc.contents ?? undefined;
      let keyNode: Node | undefined;
      for (const seg of path) {
        if (!node || typeof node !== 'object') break;
        if (isMap(node)) {
          const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
          if (!pair) break;
          keyNode = pair.key as Node;
          node = pair.value;
          best = (pair.value as Node) ?? keyNode;
        } else if ('items' in (node as object)) {
          const items = (node as { items: unknown[] }).items;
          const item = typeof seg === 'number' ? items[seg] : undefined;
          if (!item) break;
          keyNode = undefined;
          node = isPair(item) ? item.value : item;
          best = node as Node;
        } else break;
      }
      const target = key && keyNode ? keyNode : best;
      return pos(target?.range?.[0] ?? 0);
    },
  };
  const problems: Problem[] = [];
  const add = (offset: number, message: string, hint?: string) =>
    problems.push({ file, ...pos(offset), severity: 'error', message, hint });
  for (const e of doc.errors) {
    add(
      e.pos[0],
      `YAML syntax: ${e.message.split('\n')[0]}`,
      'fix the YAML syntax (indentation, quotes, colons)',
    );
  }
  if (problems.length) return { problems, locate };
  visit(doc, {
    Alias(_, n) {
      add(n.range?.[0] ?? 0, 'aliases (*name) are not allowed in flow files', 'write the value out in full');
    },
    Node(_, n) {
      if ('anchor' in n && n.anchor) {
        const at = n.range?.[0] ?? 0;
        const mark = source.lastIndexOf(`&${n.anchor}`, at);
        add(
          mark >= 0 ? mark : at,
          'anchors (&name) are not allowed in flow files',
          'write the value out in full',
        );
      }
    },
  });
  const data = doc.toJS({ maxAliasCount: -1 });
  const result = FlowFile.safeParse(data);
  if (!result.success) {
    for (const issue of result.error.issues) problems.push(issueToProblem(issue, data, file, locate));
  }
  return { flow: result.success && !problems.length ? result.data : undefined, data, problems, locate };
}

const TOP_KEYS = Object.keys(FlowFile.shape);

function issueToProblem(issue: z.core.$ZodIssue, data: unknown, file: string, locate: Locator): Problem {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const where = path.length ? `${path.join('.')}: ` : '';
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const known = knownKeysAt(path, data);
    const guess = closest(key, known);
    return {
      file,
      ...locate.at([...path, key], true),
      severity: 'error',
      message: `${where}unknown key "${key}"`,
      hint: guess
        ? `did you mean "${guess}"?`
        : known.length
          ? `allowed here: ${known.join(', ')}`
          : 'remove it (flows/flow.schema.json lists every key)',
    };
  }
  if (issue.code === 'invalid_union' && 'note' in issue && issue.note === 'No matching discriminator') {
    return {
      file,
      ...locate.at([...path, 'type']),
      severity: 'error',
      message: `${where}unknown step type`,
      hint: 'type is one of message, input, menu, branch, call, end',
    };
  }
  const missing = issue.code === 'invalid_type' && issue.message.includes('undefined');
  return {
    file,
    ...locate.at(path, missing),
    severity: 'error',
    message: missing ? `${where}is required` : `${where}${issue.message}`,
    hint: missing ? `add "${String(path[path.length - 1])}"` : undefined,
  };
}

function knownKeysAt(path: Path, data: unknown): string[] {
  if (path.length === 0) return TOP_KEYS;
  const step = path[0] === 'steps' && path.length === 2 ? getIn(data, path) : undefined;
  const type = step && typeof step === 'object' ? (step as { type?: string }).type : undefined;
  if (type) return STEP_KEYS[type] ?? [];
  return [];
}

const STEP_KEYS: Record<string, string[]> = {
  message: ['type', 'say', 'media', 'do', 'remind', 'idle', 'on_stale', 'render', 'keyboard', 'next'],
  input: [
    'type',
    'say',
    'media',
    'do',
    'remind',
    'idle',
    'on_stale',
    'render',
    'input',
    'options',
    'columns',
    'error',
    'validate',
    'retries',
    'save',
    'keyboard',
    'next',
  ],
  menu: ['type', 'say', 'media', 'do', 'remind', 'idle', 'on_stale', 'render', 'keyboard', 'on_text'],
  branch: ['type', 'cases', 'else'],
  call: ['type', 'say', 'media', 'do', 'remind', 'idle', 'on_stale', 'render', 'flow', 'next'],
  end: ['type', 'say', 'media', 'do'],
};

function getIn(data: unknown, path: Path): unknown {
  let cur = data;
  for (const seg of path) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}
