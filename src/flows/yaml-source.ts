/**
 * Reads a flow file: YAML 1.2 with line counting, validated against the zod schema, every problem
 * mapped back to `file:line:col`. Anchors, aliases and merge keys are refused to keep errors local.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument, visit } from 'yaml';
import { attachProjectKinds } from './kinds/custom-attach.ts';
import { issueToProblem, yamlHint } from './lint-shape.ts';
import type { Locator, Path, Problem, ProblemCode, Span } from './problems.ts';
import { salvageFlow } from './salvage.ts';
import { type FlowFile, flowFileSchema, type StepSchemaKind } from './schema.ts';

export type { Locator, Path } from './problems.ts';

const NO_KINDS: readonly StepSchemaKind[] = [];

export interface ParsedFlowFile {
  flow?: FlowFile;
  /** When the schema rejected the file: what is left after cutting the broken parts out (lint only). */
  salvaged?: FlowFile;
  /** The document as plain data (even when the schema rejected it). */
  data?: unknown;
  problems: Problem[];
  locate: Locator;
}

/**
 * A YAML 1.2 text read with line counting (flow files, campaign files): the document, where a path's value
 * (or its key) is, and the syntax errors as problems at `file:line:col` with what to do.
 */
export function readYaml(source: string, file: string) {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true, version: '1.2' });
  const pos = (offset: number) => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, col: p.col };
  };
  const span = (start: number, end: number): Span => {
    const { line, col } = pos(start);
    const e = pos(Math.max(start, end));
    return { line, col, endLine: e.line, endCol: e.col };
  };
  const locate: Locator = {
    at(path, key) {
      const { node, keyNode } = nodeAt(doc.contents, path);
      const target = key && keyNode ? keyNode : node;
      const [start = 0, end = start] = target?.range ?? [];
      return span(start, isCollection(target) ? lineEnd(source, start, end) : end);
    },
  };
  const problems: Problem[] = doc.errors.map((e) => {
    const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    return {
      file,
      ...span(e.pos[0], e.pos[1] > e.pos[0] ? e.pos[1] : lineEnd(source, e.pos[0], e.pos[0] + 1)),
      code: 'yaml-syntax' as const,
      severity: 'error' as const,
      message: `YAML syntax: ${message}`,
      hint: yamlHint(e.code, message),
    };
  });
  return { doc, pos, span, locate, problems };
}

/** The node at `path` (or the deepest one found on the way) and, when the last step was a map's key, that key. */
function nodeAt(root: unknown, path: Path): { node?: Node; keyNode?: Node } {
  let node: unknown = root;
  let best: Node | undefined = (root as Node | null) ?? undefined;
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
  return { node: best, keyNode };
}

/** A map or list spans many lines: an editor underlines only its first line. */
function isCollection(node: Node | undefined): boolean {
  return isMap(node) || isSeq(node);
}

/** `end`, or the end of the line `start` is on when that comes first (trailing blanks left out). */
function lineEnd(source: string, start: number, end: number): number {
  const newline = source.indexOf('\n', start);
  let stop = Math.min(end, newline < 0 ? source.length : newline);
  while (stop > start + 1 && /\s/.test(source[stop - 1]!)) stop--;
  return stop;
}

/**
 * Parses and validates one flow file's text; `kinds`: the project's own kinds of step (projectKinds), whose
 * steps are validated with their schemas and attached to their kind (kinds/custom-attach.ts).
 */
export function parseFlowSource(
  source: string,
  file: string,
  kinds: readonly StepSchemaKind[] = NO_KINDS,
): ParsedFlowFile {
  const { doc, span, locate, problems } = readYaml(source, file);
  const add = (code: ProblemCode, start: number, end: number, message: string, hint?: string) =>
    problems.push({ file, ...span(start, end), code, severity: 'error', message, hint });
  if (problems.length) return { problems, locate };
  visit(doc, {
    Alias(_, n) {
      const [start = 0, end = start] = n.range ?? [];
      add(
        'yaml-alias',
        start,
        end,
        'aliases (*name) are not allowed in flow files',
        'write the value out in full',
      );
    },
    Node(_, n) {
      if ('anchor' in n && n.anchor) {
        const at = n.range?.[0] ?? 0;
        const mark = source.lastIndexOf(`&${n.anchor}`, at);
        const start = mark >= 0 ? mark : at;
        add(
          'yaml-anchor',
          start,
          start + n.anchor.length + 1,
          'anchors (&name) are not allowed in flow files',
          'write the value out in full',
        );
      }
    },
  });
  const data = doc.toJS({ maxAliasCount: -1 });
  const schema = flowFileSchema(kinds);
  const result = schema.safeParse(data);
  if (!result.success) {
    const issues = result.error.issues;
    // A required key that is missing because it is indented under another key is reported once, there.
    const misplaced = issues.flatMap((i) =>
      i.code === 'unrecognized_keys' ? i.keys.map((k) => ({ k, at: i.path })) : [],
    );
    for (const issue of issues) {
      const last = issue.path.at(-1);
      const parent = issue.path.slice(0, -1).join('.');
      const nested = misplaced.some(
        (m) =>
          m.k === last &&
          m.at.length > issue.path.length - 1 &&
          m.at.slice(0, issue.path.length - 1).join('.') === parent,
      );
      if (issue.code !== 'unrecognized_keys' && getAt(data, issue.path as Path) === undefined && nested)
        continue;
      problems.push(issueToProblem(issue, data, file, locate, kinds));
    }
  }
  const flow = result.success && !problems.length ? result.data : undefined;
  const salvaged = flow ? undefined : result.success ? result.data : salvageFlow(data, schema);
  for (const f of [flow, salvaged]) if (f) attachProjectKinds(f.steps, kinds);
  return { flow, ...(salvaged ? { salvaged } : {}), data, problems, locate };
}

function getAt(data: unknown, path: Path): unknown {
  let cur = data;
  for (const seg of path)
    cur = cur && typeof cur === 'object' ? (cur as Record<string | number, unknown>)[seg] : undefined;
  return cur;
}
