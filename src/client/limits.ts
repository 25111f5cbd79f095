/**
 * Client-side checks of the platform's documented limits. Each function returns every violation
 * with the path of the field at fault (e.g. `attachments[0].payload.buttons[2][1].payload`), and an
 * empty list when the input is fine. They accept `unknown` so that the flow linter can run them on
 * anything a flow file produces; the client runs them before every send and refuses with UsageError.
 */
import type { LimitViolation } from './errors.ts';
import type { OperationName } from './operations.ts';
import { KEYBOARD_LIMITS, WIDE_BUTTON_TYPES } from './schemas/keyboard.ts';
import { TEXT_MAX } from './schemas/messages.ts';

export type { LimitViolation } from './errors.ts';

/** Appends a property name to a field path. */
export function fieldPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/**
 * Length as the limits count it: UTF-16 code units, so an emoji outside the basic plane counts as two.
 * The specification does not say how characters are counted; this is the strictest reading (the one a
 * JVM server's `String.length()` gives), and the sandbox counts the same, so a text that passes here and
 * in `botflow check` passes there and on the platform whichever way it counts.
 */
export function charLength(text: string): number {
  return text.length;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A message or comment text: a string of at most 4000 characters.
 *
 * @example
 * ```ts
 * import { checkText } from 'botflow-engine/client';
 *
 * const problems = checkText('x'.repeat(4001));
 * // [{ field: 'text', message: 'is 4001 characters long; the limit is 4000: shorten it or split it' }]
 * console.log(problems.map((p) => `${p.field}: ${p.message}`));
 * ```
 */
export function checkText(text: unknown, path = 'text'): LimitViolation[] {
  if (text === undefined || text === null) return [];
  if (typeof text !== 'string') return [{ field: path, message: 'must be a string' }];
  const n = charLength(text);
  if (n > TEXT_MAX) {
    return [
      { field: path, message: `is ${n} characters long; the limit is ${TEXT_MAX}: shorten it or split it` },
    ];
  }
  return [];
}

/** The button types the specification knows; any other is refused by the platform. */
export const BUTTON_TYPES: ReadonlySet<string> = new Set([
  'callback',
  'link',
  'request_contact',
  'request_geo_location',
  'open_app',
  'message',
  'clipboard',
  'chat',
]);

/**
 * One keyboard button: text 1..128, callback and clipboard payload ≤ 1024, link url ≤ 2048.
 *
 * @example
 * ```ts
 * import { checkButton } from 'botflow-engine/client';
 *
 * const problems = checkButton({ type: 'callback', text: 'Yes', payload: 'x'.repeat(2000) }, 'buttons[0][0]');
 * if (problems.length > 0) console.error(problems[0]!.field, problems[0]!.message);
 * ```
 */
export function checkButton(button: unknown, path: string): LimitViolation[] {
  if (!isRecord(button))
    return [{ field: path, message: 'a button must be an object with a type and a text' }];
  const out: LimitViolation[] = [];
  if (typeof button.type !== 'string') out.push({ field: fieldPath(path, 'type'), message: 'is missing' });
  const text = button.text;
  const L = KEYBOARD_LIMITS;
  if (typeof text !== 'string') {
    out.push({ field: fieldPath(path, 'text'), message: 'is missing: every button needs a text' });
  } else {
    const n = charLength(text);
    if (n < L.textMin || n > L.textMax) {
      out.push({
        field: fieldPath(path, 'text'),
        message: `is ${n} characters long; a button text must be ${L.textMin}..${L.textMax} characters`,
      });
    }
  }
  if (typeof button.type === 'string' && !BUTTON_TYPES.has(button.type)) {
    out.push({
      field: fieldPath(path, 'type'),
      message: `"${button.type}" is not a button type the platform knows; use one of ${[...BUTTON_TYPES].join(', ')}`,
    });
  }
  if (button.type === 'chat' && (typeof button.chat_title !== 'string' || button.chat_title === '')) {
    out.push({
      field: fieldPath(path, 'chat_title'),
      message: 'is missing: a chat button needs a chat_title',
    });
  }
  if (button.type === 'clipboard' && typeof button.payload !== 'string') {
    out.push({
      field: fieldPath(path, 'payload'),
      message: 'is missing: a clipboard button needs a payload',
    });
  } else if (button.type === 'clipboard' && charLength(button.payload as string) > L.clipboardPayload) {
    out.push({
      field: fieldPath(path, 'payload'),
      message: `is ${charLength(button.payload as string)} characters long; the limit is ${L.clipboardPayload}`,
    });
  }
  if (button.type === 'callback') {
    if (button.intent !== undefined) {
      out.push({
        field: fieldPath(path, 'intent'),
        message:
          "is not part of a callback button in the platform's specification (the platform refuses it): remove it",
      });
    }
    if (typeof button.payload !== 'string') {
      out.push({
        field: fieldPath(path, 'payload'),
        message: 'is missing: a callback button needs a payload',
      });
    } else if (charLength(button.payload) > L.callbackPayload) {
      out.push({
        field: fieldPath(path, 'payload'),
        message: `is ${charLength(button.payload)} characters long; the limit is ${L.callbackPayload}: store the data server-side and put a short key in the payload`,
      });
    }
  }
  if (button.type === 'link') {
    if (typeof button.url !== 'string' || button.url === '') {
      out.push({ field: fieldPath(path, 'url'), message: 'is missing: a link button needs a url' });
    } else if (charLength(button.url) > L.linkUrl) {
      out.push({
        field: fieldPath(path, 'url'),
        message: `is ${charLength(button.url)} characters long; the limit is ${L.linkUrl}`,
      });
    }
  }
  return out;
}

/**
 * An inline keyboard: ≤ 210 buttons, ≤ 30 rows, ≤ 7 per row (≤ 3 in a row with link, open_app, geo or contact buttons).
 *
 * @example
 * ```ts
 * import { checkKeyboard } from 'botflow-engine/client';
 *
 * const keyboard = { buttons: [[{ type: 'callback', text: 'Small', payload: 'size:s' }]] };
 * console.log(checkKeyboard(keyboard)); // [] when the keyboard keeps every limit
 * ```
 */
export function checkKeyboard(keyboard: unknown, path = 'payload'): LimitViolation[] {
  const L = KEYBOARD_LIMITS;
  if (!isRecord(keyboard) || !Array.isArray(keyboard.buttons)) {
    return [
      { field: fieldPath(path, 'buttons'), message: 'must be an array of rows, each an array of buttons' },
    ];
  }
  const rowsPath = fieldPath(path, 'buttons');
  const rows = keyboard.buttons as unknown[];
  const out: LimitViolation[] = [];
  if (rows.length === 0)
    out.push({ field: rowsPath, message: 'has no rows: leave the keyboard out instead' });
  if (rows.length > L.rows) {
    out.push({ field: rowsPath, message: `has ${rows.length} rows; the limit is ${L.rows}` });
  }
  let total = 0;
  rows.forEach((row, r) => {
    const rowPath = `${rowsPath}[${r}]`;
    if (!Array.isArray(row)) {
      out.push({ field: rowPath, message: 'a row must be an array of buttons' });
      return;
    }
    if (row.length === 0) out.push({ field: rowPath, message: 'is an empty row: remove it' });
    total += row.length;
    const wide = row.find((b) => isRecord(b) && typeof b.type === 'string' && WIDE_BUTTON_TYPES.has(b.type));
    const max = wide ? L.perRowWide : L.perRow;
    if (row.length > max) {
      const why = wide ? ` when the row holds a ${(wide as { type: string }).type} button` : '';
      out.push({ field: rowPath, message: `has ${row.length} buttons; the limit is ${max} per row${why}` });
    }
    row.forEach((b, c) => {
      out.push(...checkButton(b, `${rowPath}[${c}]`));
    });
  });
  if (total > L.buttons) {
    out.push({ field: rowsPath, message: `has ${total} buttons; the limit is ${L.buttons}` });
  }
  return out;
}

/**
 * Attachments of a message: each an object with a type; at most one inline_keyboard, within its limits.
 *
 * @example
 * ```ts
 * import { checkAttachments } from 'botflow-engine/client';
 *
 * const attachments = [{ type: 'location', latitude: 55.75, longitude: 37.62 }];
 * console.log(checkAttachments(attachments)); // []
 * ```
 */
export function checkAttachments(attachments: unknown, path = 'attachments'): LimitViolation[] {
  if (attachments === undefined || attachments === null) return [];
  if (!Array.isArray(attachments)) return [{ field: path, message: 'must be an array of attachments' }];
  const out: LimitViolation[] = [];
  let keyboards = 0;
  attachments.forEach((a, i) => {
    const at = `${path}[${i}]`;
    if (!isRecord(a) || typeof a.type !== 'string') {
      out.push({ field: fieldPath(at, 'type'), message: 'every attachment needs a type' });
      return;
    }
    if (a.type === 'inline_keyboard') {
      keyboards++;
      if (keyboards > 1) {
        out.push({
          field: at,
          message:
            'is a second inline_keyboard: a message carries at most one keyboard; merge the rows into one',
        });
      }
      out.push(...checkKeyboard(a.payload, fieldPath(at, 'payload')));
    }
  });
  return out;
}

/**
 * A NewMessageBody (send, edit, or the `message` of a callback answer).
 *
 * @example
 * ```ts
 * import { checkNewMessageBody } from 'botflow-engine/client';
 *
 * const body = { text: 'Pick a size', attachments: [] };
 * for (const { field, message } of checkNewMessageBody(body)) console.error(field, message);
 * ```
 */
export function checkNewMessageBody(body: unknown, path = ''): LimitViolation[] {
  if (!isRecord(body)) return [{ field: path || 'body', message: 'a message must be an object' }];
  return [
    ...checkText(body.text, fieldPath(path, 'text')),
    ...checkAttachments(body.attachments, fieldPath(path, 'attachments')),
  ];
}

/** A NewCommentBody: text ≤ 4000. */
export function checkNewCommentBody(body: unknown, path = ''): LimitViolation[] {
  if (!isRecord(body)) return [{ field: path || 'body', message: 'a comment must be an object' }];
  return checkText(body.text, fieldPath(path, 'text'));
}

/** Exactly one of the two fields is set (e.g. sendMessage's chat_id / user_id). */
export function checkExactlyOne(args: Record<string, unknown>, a: string, b: string): LimitViolation[] {
  const hasA = args[a] !== undefined && args[a] !== null;
  const hasB = args[b] !== undefined && args[b] !== null;
  if (hasA === hasB) {
    return [
      {
        field: hasA ? `${a}/${b}` : a,
        message: hasA
          ? `give exactly one target: ${a} or ${b}, not both`
          : `give exactly one target: ${a} (a chat) or ${b} (a person's dialog)`,
      },
    ];
  }
  return [];
}

/** A new message needs something to show: a text, an attachment or a forwarded/replied message. */
export function checkNotEmpty(body: Record<string, unknown>, path = ''): LimitViolation[] {
  const hasText = typeof body.text === 'string' && body.text.length > 0;
  const hasAttachments = Array.isArray(body.attachments) && body.attachments.length > 0;
  if (hasText || hasAttachments || isRecord(body.link)) return [];
  return [
    { field: fieldPath(path, 'text'), message: 'the message is empty: give a text, attachments or a link' },
  ];
}

/** A whole number within `min..max` when present (query counts, poll timeout). */
export function checkRange(value: unknown, min: number, max: number, path: string): LimitViolation[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    return [
      {
        field: path,
        message: `is ${JSON.stringify(value)}; it must be a whole number from ${min} to ${max}`,
      },
    ];
  }
  return [];
}

/** Bot commands of PATCH /me/commands: at most 32; name 1..64, description 1..128 characters. */
export function checkCommands(commands: unknown, path = 'commands'): LimitViolation[] {
  if (!Array.isArray(commands))
    return [{ field: path, message: 'must be an array ([] clears the commands)' }];
  const out: LimitViolation[] = [];
  if (commands.length > COMMANDS_MAX) {
    out.push({ field: path, message: `has ${commands.length} commands; the limit is ${COMMANDS_MAX}` });
  }
  commands.forEach((c, i) => {
    const at = `${path}[${i}]`;
    const name = isRecord(c) ? c.name : undefined;
    if (typeof name !== 'string' || name.length < 1 || charLength(name) > 64) {
      out.push({ field: fieldPath(at, 'name'), message: 'must be a string of 1..64 characters' });
    }
    const description = isRecord(c) ? c.description : undefined;
    if (
      description !== undefined &&
      (typeof description !== 'string' || !description || charLength(description) > 128)
    ) {
      out.push({ field: fieldPath(at, 'description'), message: 'must be a string of 1..128 characters' });
    }
  });
  return out;
}

/** Maximum number of bot commands. */
export const COMMANDS_MAX = 32;
/** What a webhook secret may hold: 5..256 of A-Z, a-z, 0-9, `_` and `-`. */
export const WEBHOOK_SECRET = /^[A-Za-z0-9_-]{5,256}$/;

/**
 * Every client-side rule of one operation's arguments; the client refuses the call when any is broken.
 *
 * @example
 * ```ts
 * import { checkOperationArgs } from 'botflow-engine/client';
 *
 * // Both targets given: sendMessage takes exactly one of chat_id and user_id.
 * const problems = checkOperationArgs('sendMessage', { chat_id: 1, user_id: 2, text: 'Hi' });
 * console.log(problems.length > 0); // true
 * ```
 */
export function checkOperationArgs(op: OperationName, args: Record<string, unknown>): LimitViolation[] {
  switch (op) {
    case 'sendMessage':
      return [
        ...checkExactlyOne(args, 'chat_id', 'user_id'),
        ...checkNotEmpty(args),
        ...checkNewMessageBody(args),
      ];
    case 'editMessage':
      return checkNewMessageBody(args);
    case 'getMessages':
      return [...checkExactlyOne(args, 'chat_id', 'message_ids'), ...checkRange(args.count, 1, 100, 'count')];
    case 'getMembers':
      return checkRange(args.count, 1, 100, 'count');
    case 'getUpdates':
      return [...checkRange(args.limit, 1, 1000, 'limit'), ...checkRange(args.timeout, 0, 90, 'timeout')];
    case 'editMyCommands':
      return checkCommands(args.commands);
    case 'subscribe':
      if (args.secret !== undefined && args.secret !== null && !WEBHOOK_SECRET.test(String(args.secret))) {
        return [{ field: 'secret', message: 'must be 5..256 characters of A-Z, a-z, 0-9, _ and -' }];
      }
      return [];
    case 'answerCallback':
    case 'answerCallbackResult': {
      const out: LimitViolation[] = [];
      if (op === 'answerCallbackResult' && !isRecord(args.message)) {
        out.push({
          field: 'message',
          message: 'is required: answerCallbackResult changes the original message',
        });
      }
      if (isRecord(args.message)) out.push(...checkNewMessageBody(args.message, 'message'));
      return out;
    }
    case 'sendComment':
    case 'editComment':
      return checkNewCommentBody(args);
    default:
      return [];
  }
}
