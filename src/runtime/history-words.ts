/** A conversation's history as a designer reads it: what happened, in words, never internal names. */
import type { HistoryEntry } from '../engine/inspect.ts';

const parsedJson = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
};

/** Reads a nested field of parsed JSON without trusting its shape. */
function field(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const key of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

/** A one-line description of a history event for people: `message "Alice"`, `button edit_age`, `timer ...`. */
export function describeEvent(event: Pick<HistoryEntry, 'kind' | 'updateType' | 'payload'>): string {
  const p = parsedJson(event.payload);
  const type = String(event.updateType ?? field(p, 'update_type') ?? event.kind);
  if (type === 'message_created') {
    const parts: string[] = [];
    const text = field(p, 'message', 'body', 'text');
    if (typeof text === 'string')
      parts.push(JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text));
    const attachments = field(p, 'message', 'body', 'attachments');
    for (const a of Array.isArray(attachments) ? attachments : []) {
      const kind = String(field(a, 'type'));
      const filename = field(a, 'filename');
      if (kind !== 'inline_keyboard') parts.push(typeof filename === 'string' ? `${kind} ${filename}` : kind);
    }
    return `message ${parts.join(' + ')}`.trim();
  }
  if (type === 'message_callback') {
    // Signed payloads read `<step instance>.<id>[:<value>].<mac>`: show the flow's own button id.
    const payload = String(field(p, 'callback', 'payload') ?? '');
    const parts = payload.split('.');
    const id = parts.length >= 3 ? parts.slice(1, -1).join('.') : payload;
    // The choices of an `options_from` step are numbered (`#4`, `#p1` turns a page): read their labels.
    const page = /^#p(\d+)$/.exec(id);
    if (page) return `turned the choices to page ${Number(page[1]) + 1}`;
    if (/^#\d+$/.test(id)) {
      const label = buttonLabel(field(p, 'message', 'body', 'attachments'), payload);
      return label === undefined ? `choice ${Number(id.slice(1)) + 1}` : `button ${JSON.stringify(label)}`;
    }
    return `button ${id}`.trim();
  }
  if (type === 'bot_started') {
    const payload = field(p, 'payload');
    return typeof payload === 'string' && payload ? `bot started (payload ${payload})` : 'bot started';
  }
  const name = field(p, 'name');
  if (typeof name === 'string' && event.kind.includes('timer')) return timerWords(name);
  if (event.kind === 'jump') return `jumped to ${String(field(p, 'step'))} (playground)`;
  if (event.kind === 'event' && typeof name === 'string') {
    const payload = JSON.stringify(field(p, 'payload') ?? {});
    return `event ${name} ${payload.length > 60 ? `${payload.slice(0, 59)}…` : payload}`;
  }
  if (event.kind === 'task_result') {
    const task = String(field(p, 'task'));
    const attempts = Number(field(p, 'attempts') ?? 1);
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    if (field(p, 'ok') !== false) return `task ${task} done${tries}`;
    const code = String(field(p, 'error', 'code') ?? 'error');
    return code === 'timeout' ? `task ${task} timed out${tries}` : `task ${task} failed (${code})${tries}`;
  }
  const ref = field(p, 'ref');
  if (typeof ref === 'string') {
    const failed = field(p, 'ok') === false;
    if (ref === 'render')
      return failed ? 'message could not be shown' : 'message shown (kept to edit in place)';
    return failed ? `call ${ref} failed` : `call ${ref} answered`;
  }
  return type.replaceAll('_', ' ');
}

/** The label of the keyboard button with `payload` in a message's attachments, if the update carried them. */
function buttonLabel(attachments: unknown, payload: string): string | undefined {
  for (const a of Array.isArray(attachments) ? attachments : []) {
    const rows = field(a, 'payload', 'buttons');
    for (const row of Array.isArray(rows) ? rows : [])
      for (const b of Array.isArray(row) ? row : [])
        if (field(b, 'payload') === payload && typeof field(b, 'text') === 'string')
          return field(b, 'text') as string;
  }
  return undefined;
}

/** A timer as a designer names it: `ask_name:remind:0` → "reminder 1 of ask_name". */
function timerWords(name: string): string {
  const remind = /^(.+):remind:(\d+)$/.exec(name);
  if (remind) return `reminder ${Number(remind[2]) + 1} of ${remind[1]}`;
  const idle = /^(.+):idle$/.exec(name);
  if (idle) return `idle timeout of ${idle[1]}`;
  return `timer ${name}`;
}
