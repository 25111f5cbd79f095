/**
 * Reads a flow file: YAML 1.2 with line counting, validated against the zod schema, every problem
 * mapped back to `file:line:col`. Anchors, aliases and merge keys are refused to keep errors local.
 */
import { isMap, isPair, isScalar, LineCounter, type Node, parseDocument, visit } from 'yaml';
import type { z } from 'zod';
import { closest, type Problem } from './problems.ts';
import { salvageFlow } from './salvage.ts';
import { FlowFile, flowJsonSchema } from './schema.ts';

export type Path = readonly (string | number)[];

/** Finds the line and column of a value (or of its key, with `key: true`) in a parsed document. */
export interface Locator {
  at(path: Path, key?: boolean): { line: number; col: number };
}

export interface ParsedFlowFile {
  flow?: FlowFile;
  /** When the schema rejected the file: what is left after cutting the broken parts out (lint only). */
  salvaged?: FlowFile;
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
  const flow = result.success && !problems.length ? result.data : undefined;
  const salvaged = flow ? undefined : result.success ? result.data : salvageFlow(data);
  return { flow, ...(salvaged ? { salvaged } : {}), data, problems, locate };
}

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
  if (issue.code === 'invalid_value') {
    const options = issue.values.map(String);
    const given = String(getAt(data, path) ?? '');
    const guess = closest(given, options);
    return {
      file,
      ...locate.at(path),
      severity: 'error',
      message: `${where}"${given}" is not one of ${options.join(', ')}`,
      hint: guess ? `did you mean "${guess}"?` : undefined,
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

type JsonSchema = {
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  $ref?: string;
  const?: unknown;
};
let jsonSchema: JsonSchema & { $defs?: Record<string, JsonSchema> };

/** The keys the format allows at `path` (read from the JSON Schema, so it never drifts from zod). */
function knownKeysAt(path: Path, data: unknown): string[] {
  jsonSchema ??= flowJsonSchema() as typeof jsonSchema;
  const deref = (x: JsonSchema | undefined): JsonSchema | undefined =>
    x?.$ref ? jsonSchema.$defs?.[x.$ref.split('/').pop()!] : x;
  const pick = (x: JsonSchema | undefined, value: unknown): JsonSchema | undefined => {
    const node = deref(x);
    const options = node?.oneOf ?? node?.anyOf;
    if (!options) return node;
    const type = value && typeof value === 'object' ? (value as { type?: unknown }).type : undefined;
    const objects = options.map(deref).filter((o): o is JsonSchema => !!o?.properties);
    return objects.find((o) => o.properties?.type?.const === type) ?? objects[0];
  };
  let node = pick(jsonSchema, data);
  let value = data;
  for (const seg of path) {
    value = value && typeof value === 'object' ? (value as Record<string | number, unknown>)[seg] : undefined;
    const next =
      typeof seg === 'number'
        ? node?.items
        : (node?.properties?.[seg] ??
          (typeof node?.additionalProperties === 'object' ? node.additionalProperties : undefined));
    node = pick(next, value);
  }
  return Object.keys(node?.properties ?? {}).filter((k) => k !== '$schema');
}

function getAt(data: unknown, path: Path): unknown {
  let cur = data;
  for (const seg of path)
    cur = cur && typeof cur === 'object' ? (cur as Record<string | number, unknown>)[seg] : undefined;
  return cur;
}
