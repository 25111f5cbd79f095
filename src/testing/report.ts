/** Failure output: the expected and the actual turn side by side, each actual call with the step that made it. */
import type { ActualAction } from './match.ts';
import type { BotExpectation, PersonAction, TextPattern } from './transcript.ts';

const WIDTH = 52;

const quote = (t: string | undefined) => (t === undefined ? '(no text)' : JSON.stringify(t));
const rows = (k: string[][] | 'none' | undefined) =>
  k === undefined ? '' : k === 'none' ? ' [no keyboard]' : ` ${k.map((r) => `[${r.join(' | ')}]`).join(' ')}`;

/** One line for what the person did. */
export function describeAction(a: PersonAction): string {
  switch (a.kind) {
    case 'start':
      return a.payload === undefined ? 'start' : `start (payload ${quote(a.payload)})`;
    case 'say':
      return `say ${quote(a.text)}`;
    case 'press':
      return `press ${quote(a.button)}${a.on === 'latest' ? '' : ` (on the ${a.on} message with it)`}`;
    case 'wait':
      return `wait ${a.text}`;
    case 'file':
      return `send ${a.type} ${quote(a.name)}`;
    case 'location':
      return `send location ${a.latitude},${a.longitude}`;
    case 'event':
      return `event ${a.event.name} ${JSON.stringify(a.event.payload)}`;
    default:
      return a.kind;
  }
}

const pattern = (p: TextPattern | undefined) => (p === undefined ? '' : ` ${quote(p)}`);

/** One line for an expectation. */
export function describeExpected(e: BotExpectation): string {
  switch (e.kind) {
    case 'send':
    case 'edit':
      return `${e.kind}${pattern(e.message.text)}${rows(e.message.keyboard)}`;
    case 'upload':
      return `upload ${e.type ?? ''}${pattern(e.message.text)}${rows(e.message.keyboard)}`;
    case 'answer':
      return e.notify === undefined
        ? 'answer'
        : e.notify === null
          ? 'answer (silent)'
          : `answer, notify ${quote(e.notify)}`;
    case 'action':
      return `action ${e.action}`;
    case 'call':
      return `call ${e.op}${e.args ? ` ${JSON.stringify(e.args)}` : ''}`;
    case 'task':
      return `task ${e.task}${e.input ? ` ${JSON.stringify(e.input)}` : ''}`;
    default:
      return e.kind;
  }
}

/** One line for what the bot did. */
export function describeActual(a: ActualAction): string {
  switch (a.kind) {
    case 'send':
    case 'edit':
      return `${a.kind} ${quote(a.text)}${rows(a.keyboard)}`;
    case 'upload':
      return `upload ${a.type ?? ''} ${quote(a.text)}${rows(a.keyboard)}`;
    case 'answer':
      return a.notify ? `answer, notify ${quote(a.notify)}` : 'answer (silent)';
    case 'action':
      return `action ${a.action}`;
    case 'call':
      return `call ${a.op} ${JSON.stringify(a.args)}`;
    case 'task':
      return `task ${a.op} ${JSON.stringify(a.args)}`;
    default:
      return a.kind;
  }
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length || out.length === 0; i += width) out.push(text.slice(i, i + width));
  return out;
}

/** The side-by-side table of one turn; rows with problems are marked and explained. */
export function sideBySide(
  expected: BotExpectation[] | 'nothing',
  actual: ActualAction[],
  problems: (string[] | undefined)[],
): string {
  const exp = expected === 'nothing' ? [] : expected;
  const n = Math.max(exp.length, actual.length, 1);
  const lines = [`    ${'expected'.padEnd(WIDTH)} │ actual`];
  for (let i = 0; i < n; i++) {
    const left = exp[i] ? describeExpected(exp[i]!) : i === 0 && expected === 'nothing' ? 'nothing' : '';
    const right = actual[i] ? describeActual(actual[i]!) : i === 0 && actual.length === 0 ? 'nothing' : '';
    const l = wrap(left, WIDTH);
    const r = wrap(right, WIDTH + 20);
    const bad = (problems[i]?.length ?? 0) > 0;
    for (let j = 0; j < Math.max(l.length, r.length); j++) {
      lines.push(`  ${j === 0 && bad ? '✗' : ' '} ${(l[j] ?? '').padEnd(WIDTH)} │ ${r[j] ?? ''}`);
    }
    const from = actual[i]?.step ? `from ${actual[i]!.step}` : '';
    if (bad || from) {
      lines.push(`    ${''.padEnd(WIDTH)} │   ${[from, ...(problems[i] ?? [])].filter(Boolean).join('; ')}`);
    }
  }
  return lines.join('\n');
}
