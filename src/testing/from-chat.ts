/**
 * A transcript test from a conversation had in the playground ("save as test"): the person's actions are
 * read from the conversation's history (since their last Start, or the last jump to a step), replayed on
 * the transcript harness with the flows as they are now (tasks answered with the results they gave), and
 * what the bot did in each turn becomes that turn's expectations. The file it gives passes by
 * construction, and fails when a later change to the flows changes what the person sees.
 */
import { stringify } from 'yaml';
import type { HistoryEntry } from '../engine/inspect.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { BotflowError } from '../errors/index.ts';
import { Harness } from './harness.ts';
import { type ActualAction, describeCall } from './match.ts';
import { stubTasks, withMissingStubs } from './task-stubs.ts';
import type { PersonAction, StartAt, TaskStub } from './transcript.ts';

/** What a chat gives a transcript: who, where it starts, what they did, what the tasks answered. */
export interface ChatLog {
  flow: string;
  person: { name: string; locale?: string };
  startAt?: StartAt;
  actions: PersonAction[];
  tasks: Record<string, TaskStub[]>;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});

/** The label of the button with `payload` on the message a press came from. */
function labelOf(message: unknown, payload: unknown): string | undefined {
  const attachments = obj(obj(message).body).attachments;
  for (const a of Array.isArray(attachments) ? attachments : []) {
    if (obj(a).type !== 'inline_keyboard') continue;
    for (const row of (obj(obj(a).payload).buttons ?? []) as Obj[][])
      for (const b of row) if (b.payload === payload) return String(b.text ?? '');
  }
  return undefined;
}

/** A person's update as a transcript action, or undefined for what a transcript does not write. */
function actionOf(update: Obj): PersonAction | undefined {
  switch (update.update_type) {
    case 'bot_started':
      return { kind: 'start', ...(typeof update.payload === 'string' ? { payload: update.payload } : {}) };
    case 'bot_stopped':
      return { kind: 'stop' };
    case 'message_callback': {
      const callback = obj(update.callback);
      const label = labelOf(update.message, callback.payload);
      return label === undefined ? undefined : { kind: 'press', button: label, on: 'latest' };
    }
    case 'message_created': {
      const body = obj(obj(update.message).body);
      const attachments = (Array.isArray(body.attachments) ? body.attachments : []) as Obj[];
      const contact = attachments.find((a) => a.type === 'contact');
      if (contact) {
        const p = obj(contact.payload);
        return { kind: 'contact', ...(typeof p.name === 'string' ? { name: p.name } : {}) };
      }
      const location = attachments.find((a) => a.type === 'location');
      if (location)
        return {
          kind: 'location',
          latitude: Number(location.latitude),
          longitude: Number(location.longitude),
        };
      const file = attachments.find((a) => ['file', 'image', 'video', 'audio'].includes(String(a.type)));
      if (file)
        return {
          kind: 'file',
          type: file.type as 'file',
          name: String(obj(file.payload).filename ?? obj(file).filename ?? 'file.txt'),
          ...(typeof body.text === 'string' && body.text ? { text: body.text } : {}),
        };
      return typeof body.text === 'string' ? { kind: 'say', text: body.text } : undefined;
    }
    default:
      return undefined;
  }
}

const durationText = (ms: number) => {
  const s = Math.ceil(ms / 1000);
  const [d, h, m, sec] = [
    Math.floor(s / 86400),
    Math.floor((s % 86400) / 3600),
    Math.floor((s % 3600) / 60),
    s % 60,
  ];
  return [d && `${d}d`, h && `${h}h`, m && `${m}m`, sec && `${sec}s`].filter(Boolean).join('') || '1s';
};

/**
 * The chat of one conversation, from its history (oldest first): the actions since the last Start or
 * jump, reminders and timeouts that fired as waits, task results as stubs.
 */
export function chatLogFrom(
  history: readonly HistoryEntry[],
  who: { flow: string; name: string; locale?: string },
): ChatLog {
  const events = [...history].sort((a, b) => a.inboxId - b.inboxId);
  const from = Math.max(
    0,
    events.findLastIndex(
      (e) => e.kind === 'jump' || (e.kind === 'update' && obj(e.payload).update_type === 'bot_started'),
    ),
  );
  const log: ChatLog = {
    flow: who.flow,
    person: { name: who.name, ...(who.locale ? { locale: who.locale } : {}) },
    actions: [],
    tasks: {},
  };
  let last = events[from]?.processedAt ?? events[from]?.receivedAt ?? 0;
  let lastTimerDue: number | undefined;
  for (const e of events.slice(from)) {
    const payload = obj(e.payload);
    if (e.kind === 'jump') {
      log.startAt = { step: String(payload.step), context: obj(payload.vars) };
      log.flow = typeof payload.flow === 'string' ? payload.flow : log.flow;
    } else if (e.kind === 'update' && e.status !== 'failed') {
      const action = actionOf(payload);
      if (!action) continue;
      log.actions.push(action);
      last = e.processedAt ?? e.receivedAt;
      lastTimerDue = undefined;
    } else if (e.kind === 'timer' && e.status === 'done') {
      const due = Number(payload.dueAt);
      const ms = Math.max(1000, due - (lastTimerDue ?? last));
      log.actions.push({ kind: 'wait', ms: Math.ceil(ms / 1000) * 1000, text: durationText(ms) });
      lastTimerDue = due;
    } else if (e.kind === 'task_result') {
      const name = String(payload.task);
      const stub: TaskStub = payload.ok
        ? { result: payload.result }
        : { error: { code: String(obj(payload.error).code ?? 'error') } };
      log.tasks[name] = [...(log.tasks[name] ?? []), stub];
    }
  }
  return log;
}

/** One call as a transcript expectation, in the file's words. */
function expectationOf(a: ActualAction): Obj {
  const message = () => (a.keyboard ? { text: a.text ?? '', keyboard: a.keyboard } : (a.text ?? ''));
  switch (a.kind) {
    case 'send':
      return { send: message() };
    case 'edit':
      return { edit: message() };
    case 'answer':
      return { answer: a.notify === null || a.notify === undefined ? 'silent' : a.notify };
    case 'upload':
      return { upload: { ...(a.type ? { type: a.type } : {}), ...(a.text ? { text: a.text } : {}) } };
    case 'delete':
      return { delete: true };
    case 'action':
      return { action: a.action ?? '' };
    case 'task':
      return { task: { name: a.op, input: a.args } };
    default:
      return { call: { op: a.op } };
  }
}

const actionYaml = (a: PersonAction): Obj => {
  switch (a.kind) {
    case 'start':
      return { start: a.payload === undefined ? true : { payload: a.payload } };
    case 'say':
      return { say: a.text };
    case 'press':
      return { press: a.button };
    case 'contact':
      return { contact: a.name === undefined ? true : { name: a.name } };
    case 'location':
      return { location: { latitude: a.latitude, longitude: a.longitude } };
    case 'file':
      return { file: { name: a.name, type: a.type, ...(a.text ? { text: a.text } : {}) } };
    case 'stop':
      return { stop: true };
    case 'wait':
      return { wait: a.text };
    case 'event':
      return { event: a.event };
  }
};

/** The transcript of a chat: the actions replayed on the harness, what the bot did as expectations. */
export async function transcriptFromChat(
  log: ChatLog,
  flows: FlowDefinition[],
  name: string,
): Promise<string> {
  if (log.actions.length === 0)
    throw new BotflowError(
      'BOTFLOW_TEST_SETUP',
      'nothing to save: the person did nothing since their last Start',
    );
  const harness = await Harness.start({ flows, tasks: withMissingStubs(stubTasks(log.tasks)) });
  const turns: Obj[] = [];
  try {
    const person = await harness.person(log.person.name, log.person.locale);
    if (log.startAt) await harness.startAt(person, log.flow, log.startAt);
    else if (log.actions[0]?.kind !== 'start') await harness.openDialog(person);
    for (const action of log.actions) {
      const outcome = await harness.act(person, action);
      const calls = outcome.calls.map(describeCall);
      turns.push({ ...actionYaml(action), bot: calls.length ? calls.map(expectationOf) : 'nothing' });
    }
  } finally {
    await harness.close();
  }
  const doc: Obj = {
    flow: log.flow,
    name,
    person: log.person,
    ...(log.startAt ? { start_at: log.startAt } : {}),
    ...(Object.keys(log.tasks).length ? { tasks: log.tasks } : {}),
    turns,
  };
  return `# Saved from the playground: what the bot says now, turn by turn. Edit freely (~part, /re/).\n${stringify(doc, { lineWidth: 0 })}`;
}
