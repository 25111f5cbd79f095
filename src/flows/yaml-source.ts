/**
 * Reads a flow file: YAML 1.2 with line counting, validated against the zod schema, every problem
 * mapped back to `file:line:col`. Anchors, aliases and merge keys are refused to keep errors local.
 */
import { isMap, isPair, isScalar, LineCounter, type Node, parseDocument, visit } from 'yaml';
import { attachProjectKinds } from './kinds/custom-attach.ts';
import { issueToProblem, yamlHint } from './lint-shape.ts';
import type { Locator, Path, Problem } from './problems.ts';
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
  const problems: Problem[] = doc.errors.map((e) => {
    const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    return {
      file,
      ...pos(e.pos[0]),
      severity: 'error' as const,
      message: `YAML syntax: ${message}`,
      hint: yamlHint(e.code, message),
    };
  });
  return { doc, pos, locate, problems };
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
  const { doc, pos, locate, problems } = readYaml(source, file);
  const add = (offset: number, message: string, hint?: string) =>
    problems.push({ file, ...pos(offset), severity: 'error', message, hint });
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
