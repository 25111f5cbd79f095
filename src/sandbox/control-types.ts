/** What the control API (`/_sandbox/`) answers with, as the control client types it. */

/** A person created in the sandbox. */
export interface SandboxUser {
  user_id: number;
  first_name: string;
  last_name?: string;
  username?: string;
  name: string;
  locale?: string;
}

/** A chat as the control API returns it (the Bot API's Chat object). */
export interface SandboxChat {
  chat_id: number;
  type: string;
  title?: string;
  status: string;
  [key: string]: unknown;
}

/** A message as the Bot API shows it. */
export interface SandboxMessage {
  body: { mid: string; text?: string; attachments?: unknown[] };
  recipient: { chat_id?: number; chat_type?: string; user_id?: number };
  sender?: { user_id: number };
  timestamp: number;
  [key: string]: unknown;
}

/** A bot the sandbox hosts (`GET /_sandbox/bots`). */
export interface SandboxBotInfo {
  id: number;
  name: string;
  username: string;
}
