/** Checking one transcript document by hand, so that every problem says exactly what to write instead. */
import { parse as parseYaml } from 'yaml';
import { durationMs } from '../engine/step/durations.ts';
import { closest } from '../flows/problems.ts';
import { httpFakesOf } from './http-fakes.ts';
import { intentStubOf } from './intent-stubs.ts';
import { fail, Invalid, isObj, keysOf, type Obj, type Path, str } from './parse-helpers.ts';
import { transcriptTasksOf } from './parse-task-stubs.ts';
import type { BotExpectation, MessageExpectation, PersonAction, Transcript, Turn } from './transcript.ts';

export { Invalid, type Path } from './parse-helpers.ts';

const ACTIONS = ['start', 'say', 'press', 'contact', 'location', 'file', 'stop', 'wait', 'event'];
const EXPECTATIONS = ['send', 'edit', 'answer', 'upload', 'delete', 'action', 'call', 'task'];
const TOP = ['flow', 'name', 'person', 'clock', 'start_at', 'tasks', 'http', 'turns'];

/** Several problems of one transcript, reported together (plain, like Invalid: load.ts reports them). */
export class InvalidMany extends Error {
  constructor(readonly all: Invalid[]) {
    super(all.map((x) => x.message).join('; '));
  }
}

/**
 * Checks one YAML document and turns it into a Transcript. Every problem is found in one pass: throws
 * Invalid for one, InvalidMany for several.
 */
export function toTranscript(data: unknown, file: string, lineOf: (p: Path) => number): Transcript {
  if (!isObj(data)) throw new Invalid([], 'a transcript is a mapping with flow, name and turns');
  const errors: Invalid[] = [];
  const attempt = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      errors.push(error);
      return undefined;
    }
  };
  attempt(() => keysOf(data, [], TOP));
  const flow = attempt(() =>
    str(
      data.flow ?? fail(['flow'], 'flow is required', 'name the flow under test: flow: signup'),
      ['flow'],
      'flow',
    ),
  );
  const name = attempt(() =>
    str(
      data.name ?? fail(['name'], 'name is required', 'say what this dialog proves: name: happy path'),
      ['name'],
      'name',
    ),
  );
  const person = attempt(() => personOf(data.person));
  let turns: (Turn | undefined)[] = [];
  if (!Array.isArray(data.turns) || data.turns.length === 0) {
    errors.push(
      new Invalid(
        ['turns'],
        'turns must be a non-empty list',
        'add turns: - say: "hi" with bot: { send: "…" }',
      ),
    );
  } else turns = data.turns.map((t, i) => attempt(() => toTurn(t, ['turns', i], lineOf)));
  const startAt = data.start_at === undefined ? undefined : attempt(() => startAtOf(data.start_at));
  const clock = data.clock === undefined ? undefined : attempt(() => clockOf(data.clock));
  const tasks = data.tasks === undefined ? undefined : attempt(() => transcriptTasksOf(data.tasks));
  const http = data.http === undefined ? undefined : attempt(() => httpFakesOf(data.http));
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new InvalidMany(errors);
  return {
    file,
    line: lineOf([]),
    flow: flow!,
    name: name!,
    person: person!,
    ...(startAt ? { startAt } : {}),
    ...(clock !== undefined ? { clock } : {}),
    ...(tasks && Object.keys(tasks.stubs).length ? { tasks: tasks.stubs } : {}),
    ...(tasks?.real ? { realTasks: tasks.real } : {}),
    ...(http ? { http } : {}),
    turns: turns as Turn[],
  };
}

/** `clock: 2026-03-01T09:00:00Z` (or a date): where the transcript's virtual clock starts, in ms. */
function clockOf(v: unknown): number {
  const text = v instanceof Date ? v.toISOString() : typeof v === 'string' ? v : undefined;
  const ms = text === undefined ? Number.NaN : Date.parse(text);
  if (!Number.isFinite(ms))
    fail(
      ['clock'],
      'clock is a date and time',
      'e.g. clock: 2026-03-01T09:00:00Z (UTC), or clock: 2026-03-01',
    );
  return ms;
}

function personOf(v: unknown): Transcript['person'] {
  if (v === undefined) return { name: 'Ann' };
  if (typeof v === 'string') return { name: v };
  if (!isObj(v)) fail(['person'], 'person is a name or { name, locale }');
  keysOf(v, ['person'], ['name', 'locale']);
  return {
    name: v.name === undefined ? 'Ann' : str(v.name, ['person', 'name'], 'person.name'),
    ...(v.locale === undefined ? {} : { locale: str(v.locale, ['person', 'locale'], 'person.locale') }),
  };
}

function startAtOf(v: unknown): Transcript['startAt'] {
  if (!isObj(v))
    fail(
      ['start_at'],
      'start_at is { step, context }',
      'e.g. start_at: { step: confirm, context: { name: Ann } }',
    );
  keysOf(v, ['start_at'], ['step', 'context']);
  const step = str(
    v.step ?? fail(['start_at'], 'start_at.step is required'),
    ['start_at', 'step'],
    'start_at.step',
  );
  if (v.context !== undefined && !isObj(v.context))
    fail(['start_at', 'context'], 'start_at.context is a mapping of variables');
  return { step, context: (v.context as Obj | undefined) ?? {} };
}

function toTurn(v: unknown, path: Path, lineOf: (p: Path) => number): Turn {
  if (!isObj(v))
    fail(path, 'a turn is a mapping: one action (say, press, …) and bot', `actions: ${ACTIONS.join(', ')}`);
  keysOf(v, path, ['bot', 'intent', ...ACTIONS]);
  const actions = Object.keys(v).filter((k) => ACTIONS.includes(k));
  if (actions.length !== 1) {
    fail(
      path,
      actions.length ? `one action per turn, found ${actions.join(' and ')}` : 'the turn has no action',
      `actions: ${ACTIONS.join(', ')}`,
    );
  }
  const kind = actions[0]!;
  const action = toAction(kind, v[kind], [...path, kind]);
  if (!('bot' in v)) {
    fail(
      path,
      'the turn does not say what the bot must do',
      'add bot: { send: "…" }, a list of expectations, or bot: nothing',
    );
  }
  const bot =
    v.bot === 'nothing' || (isObj(v.bot) && v.bot.nothing === true)
      ? 'nothing'
      : toExpectations(v.bot, [...path, 'bot']);
  if ('intent' in v && kind !== 'say')
    fail(
      [...path, 'intent'],
      'intent stubs the classification of a text: it goes with say',
      'e.g. - { say: "a table please", intent: book }',
    );
  const intent = 'intent' in v ? intentStubOf(v.intent, [...path, 'intent']) : undefined;
  return { action, bot, ...(intent ? { intent } : {}), line: lineOf(path) };
}

function toAction(kind: string, v: unknown, path: Path): PersonAction {
  switch (kind) {
    case 'start': {
      if (v === true || v === null || (isObj(v) && Object.keys(v).length === 0)) return { kind };
      if (typeof v === 'string') return { kind, payload: v };
      if (!isObj(v)) fail(path, 'start is true, a payload text, or { payload }');
      keysOf(v, path, ['payload']);
      return { kind, payload: str(v.payload, [...path, 'payload'], 'payload') };
    }
    case 'say':
      return { kind, text: str(v, path, 'say') };
    case 'press': {
      if (typeof v === 'string') return { kind, button: v, on: 'latest' };
      if (!isObj(v)) fail(path, 'press is a button label, or { button, on }');
      keysOf(v, path, ['button', 'on']);
      const on = v.on ?? 'latest';
      if (on !== 'latest' && on !== 'previous' && on !== 'first') {
        fail(
          [...path, 'on'],
          `on must be latest, previous or first, not "${String(on)}"`,
          'which bot message with this button to press',
        );
      }
      return { kind, button: str(v.button, [...path, 'button'], 'press.button'), on };
    }
    case 'contact': {
      if (v === true || v === null) return { kind };
      if (!isObj(v)) fail(path, 'contact is true (the person’s own) or { name, phone }');
      keysOf(v, path, ['name', 'phone']);
      return {
        kind,
        ...(v.name ? { name: String(v.name) } : {}),
        ...(v.phone ? { phone: String(v.phone) } : {}),
      };
    }
    case 'location': {
      if (!isObj(v) || typeof v.latitude !== 'number' || typeof v.longitude !== 'number') {
        fail(
          path,
          'location is { latitude, longitude } in degrees',
          'e.g. location: { latitude: 52.52, longitude: 13.4 }',
        );
      }
      keysOf(v, path, ['latitude', 'longitude']);
      return { kind, latitude: v.latitude, longitude: v.longitude };
    }
    case 'file': {
      if (typeof v === 'string') return { kind, type: 'file', name: v };
      if (!isObj(v)) fail(path, 'file is a file name, or { name, type, text }');
      keysOf(v, path, ['name', 'type', 'text']);
      const type = v.type ?? 'file';
      if (!['file', 'image', 'video', 'audio'].includes(String(type))) {
        fail([...path, 'type'], `file type must be file, image, video or audio, not "${String(type)}"`);
      }
      return {
        kind,
        type: type as 'file',
        name: v.name === undefined ? 'file.txt' : str(v.name, [...path, 'name'], 'file.name'),
        ...(v.text === undefined ? {} : { text: str(v.text, [...path, 'text'], 'file.text') }),
      };
    }
    case 'stop':
      return { kind };
    case 'event':
      return eventActionOf(v, path);
    default: {
      const text = str(v, path, 'wait');
      const ms = durationMs(text);
      if (!/^(\d+(ms|s|m|h|d))+$/.test(text.trim()) || ms <= 0) {
        fail(path, `wait "${text}" is not a duration`, 'write it like 90s, 15m, 2h, 1d or 1h30m');
      }
      return { kind: 'wait', ms, text };
    }
  }
}

/**
 * An event turn: `event: { order_shipped: { id: 7 } }`, `event: "order_shipped { id: 7 }"` (a name, then its
 * payload in YAML: quoted, since the payload has colons), `event: order_shipped` or `{ name, payload, key }`.
 */
function eventActionOf(v: unknown, path: Path): PersonAction {
  const hint =
    'e.g. event: { order_shipped: { id: 7 } }, or event: { name: order_shipped, payload: { id: 7 }, key: k1 }';
  if (typeof v === 'string') {
    const m = /^\s*([A-Za-z][A-Za-z0-9_.-]*)\s*(.*)$/s.exec(v);
    if (!m) fail(path, `event "${v}" does not start with an event name`, hint);
    let payload: unknown = {};
    if (m[2]!.trim()) {
      try {
        payload = parseYaml(m[2]!);
      } catch (error) {
        fail(path, `the payload of event ${m[1]} is not YAML: ${(error as Error).message}`, hint);
      }
    }
    return { kind: 'event', event: { name: m[1]!, payload } };
  }
  if (!isObj(v)) fail(path, 'event is a name with its payload, or { name, payload, key }', hint);
  const keys = Object.keys(v);
  // `event: { order_shipped: { id: 7 } }`: the event's name, its payload.
  if (keys.length === 1 && !['name', 'payload', 'key'].includes(keys[0]!))
    return { kind: 'event', event: { name: keys[0]!, payload: v[keys[0]!] ?? {} } };
  keysOf(v, path, ['name', 'payload', 'key']);
  const name = str(v.name, [...path, 'name'], 'event.name');
  const key = v.key === undefined ? {} : { key: str(v.key, [...path, 'key'], 'event.key') };
  return { kind: 'event', event: { name, payload: v.payload ?? {}, ...key } };
}

function toExpectations(v: unknown, path: Path): BotExpectation[] {
  const list = Array.isArray(v) ? v : [v];
  if (list.length === 0)
    fail(path, 'an empty list of expectations', 'write bot: nothing when the bot must not react');
  return list.map((e, i) => toExpectation(e, Array.isArray(v) ? [...path, i] : path));
}

function toExpectation(v: unknown, path: Path): BotExpectation {
  if (typeof v === 'string')
    fail(
      path,
      'an expectation says what the bot does, not only a text',
      `write { send: ${JSON.stringify(v)} }`,
    );
  if (!isObj(v) || Object.keys(v).length !== 1) {
    fail(
      path,
      'each expectation has exactly one kind',
      `kinds: ${EXPECTATIONS.join(', ')}, e.g. { send: "Hello" }`,
    );
  }
  const [kind, body] = Object.entries(v)[0]!;
  const at = [...path, kind];
  if (!EXPECTATIONS.includes(kind)) {
    const guess = closest(kind, EXPECTATIONS);
    fail(
      at,
      `unknown key "${kind}"`,
      guess ? `did you mean "${guess}"?` : `kinds: ${EXPECTATIONS.join(', ')}`,
      guess,
    );
  }
  switch (kind) {
    case 'send':
    case 'edit':
      return { kind, message: messageOf(body, at) };
    case 'upload': {
      if (!isObj(body)) fail(at, 'upload is { type, text, keyboard }');
      const { type, ...rest } = body;
      return { kind, ...(type ? { type: String(type) } : {}), message: messageOf(rest, at) };
    }
    case 'answer': {
      if (body === true || body === null || (isObj(body) && Object.keys(body).length === 0)) return { kind };
      if (body === 'silent') return { kind, notify: null };
      if (typeof body === 'string') return { kind, notify: body };
      if (!isObj(body)) fail(at, 'answer is true, silent, a notification text, or { notify }');
      keysOf(body, at, ['notify']);
      return { kind, notify: str(body.notify, [...at, 'notify'], 'answer.notify') };
    }
    case 'delete':
      return { kind };
    case 'action':
      return { kind, action: str(body, at, 'action') };
    case 'task': {
      if (typeof body === 'string') return { kind, task: body };
      if (!isObj(body) || typeof body.name !== 'string')
        fail(
          at,
          'task is a task name, or { name, input }',
          'e.g. task: { name: find_slots, input: { party: 4 } }',
        );
      keysOf(body, at, ['name', 'input']);
      if (body.input !== undefined && !isObj(body.input)) fail([...at, 'input'], 'task.input is a mapping');
      return { kind, task: body.name, ...(body.input ? { input: body.input as Obj } : {}) };
    }
    default: {
      if (!isObj(body) || typeof body.op !== 'string')
        fail(at, 'call is { op, args }', 'e.g. call: { op: pinMessage, args: { notify: false } }');
      keysOf(body, at, ['op', 'args']);
      if (body.args !== undefined && !isObj(body.args)) fail([...at, 'args'], 'call.args is a mapping');
      return { kind: 'call', op: body.op, ...(body.args ? { args: body.args as Obj } : {}) };
    }
  }
}

function messageOf(v: unknown, path: Path): MessageExpectation {
  if (typeof v === 'string') return { text: v };
  if (v === null) {
    // `send: ~` or `send:` alone: YAML reads a bare ~ (or nothing) as null, not as the text "~".
    const kind = String(path[path.length - 1]);
    fail(
      path,
      `${kind} has no text: YAML reads a bare ~ (or nothing) as null`,
      `quote it: ${kind}: "~" matches any text, ${kind}: "~part" a text that contains part`,
    );
  }
  if (!isObj(v)) fail(path, 'a message is a text, or { text, keyboard }');
  keysOf(v, path, ['text', 'keyboard']);
  const out: MessageExpectation = {};
  if (v.text !== undefined) out.text = str(v.text, [...path, 'text'], 'text');
  if (v.keyboard === 'none') out.keyboard = 'none';
  else if (v.keyboard !== undefined) {
    const rows = v.keyboard;
    if (!Array.isArray(rows) || !rows.every((r) => Array.isArray(r))) {
      fail(
        [...path, 'keyboard'],
        'keyboard is a list of rows of button labels, or none',
        'e.g. keyboard: [["Yes", "No"], ["« Back"]]',
      );
    }
    out.keyboard = (rows as unknown[][]).map((r, i) =>
      r.map((b, j) => str(b, [...path, 'keyboard', i, j], 'a button label')),
    );
  }
  return out;
}
