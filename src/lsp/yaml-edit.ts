/**
 * The playground's step form writes a flow file the way a person would: only the touched values change,
 * byte for byte everything else stays (comments, key order, quoting, blank lines). The `yaml` package's
 * Document API finds the nodes and their source ranges; the new values are spliced into the text there.
 * Steps are found by id and buttons by id (or by their label), never by position.
 */
import { isMap, isScalar, isSeq, type Node, type Pair, parseDocument, Scalar, type YAMLMap } from 'yaml';

/** A keyboard button as the form shows it. */
export interface ButtonForm {
  /** The button's `id` when it has one; else it is found by `label` (its text before the edit). */
  id?: string;
  label: string;
  /** Its new text (default: unchanged). */
  text?: string;
  goto?: string;
}

/** The parts of a step the form edits; an absent field is left as it is. */
export interface StepForm {
  say?: string;
  question?: string;
  /** The next step, when `next:` is one step id (a list of conditions is edited in the file). */
  next?: string;
  buttons?: ButtonForm[];
}

/** Thrown when an edit cannot be made (no such step, a value that is not plain text): a 422 for the page. */
export class StepEditError extends Error {}

/** The step's form fields as they are in `text`, or undefined when the flow has no such step. */
export function readStepForm(text: string, step: string): StepForm | undefined {
  const node = stepNode(text, step);
  if (!node) return undefined;
  const form: StepForm = {};
  for (const key of ['say', 'question', 'next'] as const) {
    const value = node.get(key, true);
    if (isScalar(value) && typeof value.value === 'string') form[key] = value.value;
  }
  const buttons = buttonNodes(node).map((b): ButtonForm => {
    const id = scalarText(b.get('id', true));
    const goto = scalarText(b.get('goto', true));
    return {
      ...(id !== undefined ? { id } : {}),
      label: scalarText(b.get('text', true)) ?? '',
      ...(goto !== undefined ? { goto } : {}),
    };
  });
  if (buttons.length) form.buttons = buttons;
  return form;
}

/** `text` with the step's fields changed as `form` says; every other byte as it was. */
export function editStep(text: string, step: string, form: StepForm): string {
  const node = stepNode(text, step);
  if (!node) throw new StepEditError(`the flow has no step "${step}"`);
  const edits: Splice[] = [];
  for (const key of ['say', 'question', 'next'] as const) {
    const value = form[key];
    if (value !== undefined) edits.push(...setScalar(text, node, key, value));
  }
  for (const button of form.buttons ?? []) {
    const found = findButton(node, button);
    if (!found)
      throw new StepEditError(
        `step "${step}" has no button ${button.id ? `"${button.id}"` : `"${button.label}"`}`,
      );
    if (button.text !== undefined) edits.push(...setScalar(text, found, 'text', button.text));
    if (button.goto !== undefined) edits.push(...setScalar(text, found, 'goto', button.goto));
  }
  const edited = applySplices(text, edits);
  const check = parseDocument(edited);
  if (check.errors.length)
    throw new StepEditError(`the edit would break the file: ${check.errors[0]!.message}`);
  return edited;
}

/** Replace text[from, to) with `insert`. */
interface Splice {
  from: number;
  to: number;
  insert: string;
}

function applySplices(text: string, edits: Splice[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.from - a.from))
    out = out.slice(0, e.from) + e.insert + out.slice(e.to);
  return out;
}

function stepNode(text: string, step: string): YAMLMap | undefined {
  const doc = parseDocument(text);
  const steps = doc.get('steps', true);
  if (!isMap(steps)) return undefined;
  const node = steps.get(step, true);
  return isMap(node) ? node : undefined;
}

function scalarText(node: unknown): string | undefined {
  return isScalar(node) && node.value !== null && node.value !== undefined ? String(node.value) : undefined;
}

/** The step's buttons (`keyboard:` rows of buttons, or a flat list), in order. */
function buttonNodes(step: YAMLMap): YAMLMap[] {
  const keyboard = step.get('keyboard', true);
  if (!isSeq(keyboard)) return [];
  return keyboard.items
    .flatMap((row) => (isSeq(row) ? row.items : [row]))
    .filter((b): b is YAMLMap => isMap(b));
}

function findButton(step: YAMLMap, wanted: ButtonForm): YAMLMap | undefined {
  const all = buttonNodes(step);
  if (wanted.id !== undefined) return all.find((b) => scalarText(b.get('id', true)) === wanted.id);
  return all.find((b) => scalarText(b.get('text', true)) === wanted.label);
}

/** The edit that sets `key` of `map` to `value`: the old scalar replaced in place, or a new pair added. */
function setScalar(text: string, map: YAMLMap, key: string, value: string): Splice[] {
  const old = map.get(key, true) as Node | undefined;
  if (old !== undefined) {
    if (!isScalar(old) || !old.range)
      throw new StepEditError(`"${key}" is not plain text here: edit it in the file`);
    if (old.value === value) return [];
    const source = scalarSource(value, old.type, map.flow === true);
    // An empty value (`next:` and nothing): the new one needs the space after the colon.
    const bare = old.range[0] === old.range[1] && text[old.range[0] - 1] === ':';
    return [{ from: old.range[0], to: old.range[1], insert: bare ? ` ${source}` : source }];
  }
  return [addPair(text, map, key, scalarSource(value, undefined, map.flow === true))];
}

/** A new `key: value` after the map's last pair, as the map is written (a new line, or `, ` in `{ }`). */
function addPair(text: string, map: YAMLMap, key: string, source: string): Splice {
  const last = map.items[map.items.length - 1] as Pair<Node, Node> | undefined;
  const lastEnd = last?.value?.range?.[1] ?? last?.key?.range?.[1];
  if (!last || lastEnd === undefined || !last.key?.range)
    throw new StepEditError(`cannot add "${key}" to an empty map: edit it in the file`);
  if (map.flow) return { from: lastEnd, to: lastEnd, insert: `, ${key}: ${source}` };
  const lineStart = text.lastIndexOf('\n', last.key.range[0] - 1) + 1;
  const indent = text.slice(lineStart, last.key.range[0]);
  // After the last pair's line (its value may be a nested block: after the line where that ends).
  let end = text.indexOf('\n', Math.max(lastEnd - 1, 0));
  if (end < 0) end = text.length;
  return { from: end, to: end, insert: `\n${' '.repeat(indent.length)}${key}: ${source}` };
}

/** The value as YAML source, in the quoting it had when it still fits. */
function scalarSource(value: string, type: Scalar['type'], inFlow: boolean): string {
  if (type === Scalar.QUOTE_SINGLE && !value.includes('\n')) return `'${value.replaceAll("'", "''")}'`;
  if (type !== Scalar.QUOTE_DOUBLE && isPlainSafe(value, inFlow)) return value;
  return JSON.stringify(value);
}

/** Text that reads back as the same string when written without quotes. */
function isPlainSafe(value: string, inFlow: boolean): boolean {
  if (value === '' || value !== value.trim() || /[\n\t]/.test(value)) return false;
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(value) || /: |\s#/.test(value) || value.endsWith(':')) return false;
  if (inFlow && /[,[\]{}]/.test(value)) return false;
  const back = parseDocument(`k: ${value}`).get('k');
  return back === value;
}
