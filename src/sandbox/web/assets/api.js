// The page's only door to the server: the sandbox's control API (acting as people) and the inspector.

/** An error the server answered with, carrying its message for the page to show. */
export class ServerError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * The bot the page acts toward (`?bot=<id>` in the page's address; absent: the sandbox's default bot).
 * People are the same for every bot; their chats are each bot's own.
 */
export const botId = new URLSearchParams(location.search).get('bot') ?? undefined;

/** A control API path toward the chosen bot (`bot_id` added when it is not the default bot). */
export function botPath(path) {
  if (botId === undefined || !path.startsWith('/_sandbox/')) return path;
  return `${path}${path.includes('?') ? '&' : '?'}bot_id=${encodeURIComponent(botId)}`;
}

async function call(method, rawPath, body) {
  const path = botPath(rawPath);
  const res = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const data = text ? JSON.parse(text) : {};
  if (!res.ok) throw new ServerError(res.status, data.code ?? 'error', data.message ?? res.statusText);
  return data;
}

const query = (params) => new URLSearchParams(params).toString();

/** Acting as people and reading what they see (`/_sandbox/`). */
export const sandbox = {
  info: () => call('GET', '/_sandbox/info'),
  /** The bots the sandbox hosts (`[{id, name, username}]`, the default one first). */
  bots: () => call('GET', '/_sandbox/bots').then((r) => r.bots),
  users: () => call('GET', '/_sandbox/users').then((r) => r.users),
  createUser: (firstName, locale) =>
    call('POST', '/_sandbox/users', { first_name: firstName, ...(locale ? { locale } : {}) }),
  /** The person clears their dialog with the bot (the bot hears dialog_cleared). */
  clearDialog: (userId) => call('POST', '/_sandbox/dialog', { user_id: userId, action: 'clear' }),
  view: (userId, chatId) =>
    call(
      'GET',
      `/_sandbox/view?${query({ user_id: userId, ...(chatId !== undefined ? { chat_id: chatId } : {}) })}`,
    ),
  /** A chat and its members (`owner_id` among the chat's fields). */
  chat: (chatId) => call('GET', `/_sandbox/chats/${chatId}`),
  start: (userId, payload) =>
    call('POST', '/_sandbox/start', { user_id: userId, ...(payload ? { payload } : {}) }),
  stop: (userId) => call('POST', '/_sandbox/stop', { user_id: userId }),
  send: (userId, message) => call('POST', '/_sandbox/messages', { user_id: userId, ...message }),
  press: (userId, messageId, button) =>
    call('POST', '/_sandbox/press', {
      user_id: userId,
      message_id: messageId,
      ...(button.payload !== undefined ? { payload: button.payload } : { text: button.text }),
    }),
};

/** The side panel's data (`/_inspector/`); `undefined` when no engine is attached to this sandbox. */
export const inspector = {
  async state() {
    try {
      return await call('GET', '/_inspector/state');
    } catch (error) {
      if (error instanceof ServerError && error.status === 404) return undefined;
      throw error;
    }
  },
  conversation: (userId) => call('GET', `/_inspector/conversation?${query({ user_id: userId })}`),
  /** The playground's clock: the person's timers become due `ms` sooner (those now due fire). */
  advance: (userId, ms) => call('POST', '/_inspector/timers/advance', { user_id: userId, ms }),
  fireNow: (userId, timerId) =>
    call('POST', '/_inspector/timers/fire', { user_id: userId, timer_id: timerId }),
  /** Puts the person's conversation on a step with variables; its prompt is sent (`POST /_inspector/jump`). */
  jump: (request) => call('POST', '/_inspector/jump', request),
  /** An external event for the person's conversation, as POST /events sends it; resolves with the receipt. */
  sendEvent: (request) => call('POST', '/_inspector/send-event', request),
  /** Ends the person's conversation with the bot: the next message or Start begins afresh. */
  reset: (userId) => call('POST', '/_inspector/reset', { user_id: userId }),
  /** Writes the person's chat as a transcript test under the flows folder; resolves with `{ file, yaml }`. */
  saveTranscript: (userId) => call('POST', '/_inspector/transcript', { user_id: userId }),
  deadLetters: () => call('GET', '/_inspector/dead-letters').then((r) => r.deadLetters),
  /** `action`: 'retry' or 'drop'; `ids`: outbox ids, or undefined for all of them. */
  redrive: (action, ids) => call('POST', `/_inspector/dead-letters/${action}`, ids ? { ids } : { all: true }),
};

/** Reads a browser File as base64 (the control API takes file contents inline). */
export function fileToBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(',', 2)[1] ?? '');
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}
