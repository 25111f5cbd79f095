/**
 * `SandboxControl`: a typed client of the sandbox's `/_sandbox/` HTTP API, for tests and tools in this
 * or another process. Each method is one person's action or one look at what a person sees.
 */
import { Pool } from 'undici';
import type { z } from 'zod';
import { BotflowError } from '../errors/index.ts';
import type { CreateChatInput } from './control/people-chats.ts';
import type { PersonFile, PersonMessage, PressResult } from './control/people-messages.ts';
import type { PersonView } from './control/view.ts';
import type { SandboxBotInfo, SandboxChat, SandboxMessage, SandboxUser } from './control-types.ts';
import type { FeedEvent } from './feed.ts';
import type { LoggedRequest } from './request-log.ts';
import { followEvents } from './sse-client.ts';

type Json = Record<string, unknown>;

export type { SandboxBotInfo, SandboxChat, SandboxMessage, SandboxUser } from './control-types.ts';

/** Where a person writes: a chat id, or `'dialog'` for their dialog with the bot. */
export type ChatRef = number | 'dialog';

/** The control API answered with an error. */
export class SandboxControlError extends BotflowError {
  override name = 'SandboxControlError';
  constructor(
    readonly status: number,
    /** The control API's own code; the catalogue's is `botflowCode`: BOTFLOW_SANDBOX_CONTROL. */
    override readonly code: string,
    message: string,
    readonly route: string,
  ) {
    super('BOTFLOW_SANDBOX_CONTROL', `${route}: ${status} ${code}: ${message}`);
  }
}

/** Typed client of `/_sandbox/`. */
export class SandboxControl {
  private readonly pool: Pool;
  private readonly ownsPool: boolean;

  /** `botId`: act toward this bot of the sandbox (`bot_id` on every request); default the default bot. */
  constructor(
    readonly baseUrl: string,
    readonly botId?: number,
    pool?: Pool,
  ) {
    this.ownsPool = pool === undefined;
    this.pool = pool ?? new Pool(baseUrl, { connections: 4 });
  }

  /** The same client acting toward the bot `botId` (people are shared; chats are per bot). */
  forBot(botId: number): SandboxControl {
    return new SandboxControl(this.baseUrl, botId, this.pool);
  }

  /** The bots the sandbox hosts, the default one first (never with tokens). */
  async bots(): Promise<SandboxBotInfo[]> {
    return (await this.request<{ bots: SandboxBotInfo[] }>('GET', '/bots')).bots;
  }

  /**
   * Hosts one more bot (`POST /_sandbox/bots`). The answer has its `token` only where `/_sandbox/info`
   * would show one (`showToken`, on loopback). Not `addBot`: that is a person adding the bot to a chat.
   */
  createBot(input: { name: string; username?: string }) {
    return this.request<SandboxBotInfo & { token?: string }>('POST', '/bots', input);
  }

  /** Removes a bot other than the default one, with its chats and updates. */
  deleteBot(botId: number) {
    return this.request<{ success: boolean }>('DELETE', `/bots/${botId}`);
  }

  /** Sends one control request; throws SandboxControlError on a non-200 answer. */
  async request<T = Json>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: Json,
    query?: Json,
  ): Promise<T> {
    const all = this.botId !== undefined ? { ...query, bot_id: this.botId } : query;
    const qs = all
      ? Object.entries(all)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
          .join('&')
      : '';
    const route = `${method} ${path}`;
    const res = await this.pool.request({
      method,
      path: `/_sandbox${path}${qs ? `?${qs}` : ''}`,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.body.json().catch(() => ({}))) as Json;
    if (res.statusCode !== 200) {
      throw new SandboxControlError(
        res.statusCode,
        String(json.code ?? 'unknown'),
        String(json.message ?? ''),
        route,
      );
    }
    return json as T;
  }

  private chatOf(chat: ChatRef): number | undefined {
    return chat === 'dialog' ? undefined : chat;
  }

  /** The bot and the sandbox clock. */
  info() {
    return this.request<{ bot: Json; origin: string; time: number }>('GET', '/info');
  }

  /** Creates a person. */
  createUser(input: { first_name?: string; last_name?: string; username?: string; locale?: string } = {}) {
    return this.request<SandboxUser>('POST', '/users', input);
  }

  users() {
    return this.request<{ users: SandboxUser[] }>('GET', '/users');
  }

  /** Creates a group chat (or channel) owned by `owner_id`; `with_bot` adds the bot (bot_added). */
  createChat(input: z.input<typeof CreateChatInput>) {
    return this.request<SandboxChat>('POST', '/chats', input);
  }

  /** A chat with all its members (an operator's view). */
  chat(chatId: number) {
    return this.request<{ chat: SandboxChat; members: Json[] }>('GET', `/chats/${chatId}`);
  }

  /** The person presses Start (bot_started, with the deep-link `payload`). */
  startBot(userId: number, options: { payload?: string } = {}) {
    return this.request<{ chat_id: number }>('POST', '/start', { user_id: userId, ...options });
  }

  /** The person stops the bot (bot_stopped); sends to them then fail with 403. */
  stopBot(userId: number) {
    return this.request<{ chat_id: number }>('POST', '/stop', { user_id: userId });
  }

  /** Mutes the dialog with the bot (dialog_muted) until `until` ms (default 8 hours ahead). */
  mute(userId: number, options: { until?: number } = {}) {
    return this.request<{ chat_id: number }>('POST', '/dialog', {
      user_id: userId,
      action: 'mute',
      ...options,
    });
  }
  unmute(userId: number) {
    return this.request<{ chat_id: number }>('POST', '/dialog', { user_id: userId, action: 'unmute' });
  }
  /** Clears the dialog's history (dialog_cleared). */
  clearDialog(userId: number) {
    return this.request<{ chat_id: number }>('POST', '/dialog', { user_id: userId, action: 'clear' });
  }
  /** Removes the dialog (dialog_removed); starting the bot again reopens it. */
  removeDialog(userId: number) {
    return this.request<{ chat_id: number }>('POST', '/dialog', { user_id: userId, action: 'remove' });
  }

  /** The person sends any message (text, files, contact, location, reply). */
  async sendMessage(userId: number, chat: ChatRef, message: PersonMessage): Promise<SandboxMessage> {
    const r = await this.request<{ message: SandboxMessage }>('POST', '/messages', {
      user_id: userId,
      chat_id: this.chatOf(chat),
      ...message,
    });
    return r.message;
  }

  /** The person sends text (message_created). */
  sendText(userId: number, chat: ChatRef, text: string) {
    return this.sendMessage(userId, chat, { text });
  }

  /** The person sends a file, image, video or audio (optionally with a caption). */
  sendAttachment(userId: number, chat: ChatRef, file: PersonFile, text?: string) {
    return this.sendMessage(userId, chat, { files: [file], ...(text ? { text } : {}) });
  }

  /** The person shares a contact (their own by default). */
  sendContact(userId: number, chat: ChatRef, contact: PersonMessage['contact'] = {}) {
    return this.sendMessage(userId, chat, { contact });
  }

  /** The person shares a location. */
  sendLocation(userId: number, chat: ChatRef, location: { latitude: number; longitude: number }) {
    return this.sendMessage(userId, chat, { location });
  }

  /** A channel admin posts in a channel. */
  postToChannel(userId: number, chatId: number, text: string) {
    return this.sendMessage(userId, chatId, { text });
  }

  /**
   * The person presses a button of the message's inline keyboard, found by callback payload or by its
   * text (a string matches either). Callback buttons produce message_callback.
   */
  pressButton(
    userId: number,
    messageId: string,
    button: string | { payload: string } | { text: string },
    location?: { latitude: number; longitude: number },
  ) {
    const by = typeof button === 'string' ? { payload: button, text: button } : button;
    return this.request<PressResult>('POST', '/press', {
      user_id: userId,
      message_id: messageId,
      ...by,
      ...(location ? { location } : {}),
    });
  }

  /** The person edits their message (message_edited). */
  async editMessage(userId: number, messageId: string, text: string): Promise<SandboxMessage> {
    return (
      await this.request<{ message: SandboxMessage }>('PUT', '/messages', {
        user_id: userId,
        message_id: messageId,
        text,
      })
    ).message;
  }

  /** The person deletes a message (message_removed). */
  deleteMessage(userId: number, messageId: string) {
    return this.request<{ success: boolean }>('DELETE', '/messages', undefined, {
      user_id: userId,
      message_id: messageId,
    });
  }

  /** Renames a group chat (chat_title_changed). */
  renameChat(userId: number, chatId: number, title: string) {
    return this.request<SandboxChat>('PUT', `/chats/${chatId}/title`, { user_id: userId, title });
  }

  /** Adds the bot to a chat (bot_added), optionally as an admin with `permissions`. */
  addBot(userId: number, chatId: number, options: { permissions?: string[] } = {}) {
    return this.request<SandboxChat>('POST', `/chats/${chatId}/bot`, { user_id: userId, ...options });
  }

  /** Removes the bot from a chat (bot_removed). */
  removeBot(userId: number, chatId: number) {
    return this.request<SandboxChat>('DELETE', `/chats/${chatId}/bot`, undefined, { user_id: userId });
  }

  /** Adds a person to a chat (user_added). */
  addUser(actorId: number, chatId: number, userId: number) {
    return this.request<SandboxChat>('POST', `/chats/${chatId}/members`, {
      user_id: actorId,
      member_id: userId,
    });
  }

  /** Removes a person from a chat, or the person leaves when `userId` is the actor (user_removed). */
  removeUser(actorId: number, chatId: number, userId: number = actorId) {
    return this.request<SandboxChat>('DELETE', `/chats/${chatId}/members`, undefined, {
      user_id: actorId,
      member_id: userId,
    });
  }

  /** Sets the bot's admin rights in a chat (bot_admin_permissions_changed, webhook only). */
  setBotAdminRights(userId: number, chatId: number, permissions: string[]) {
    return this.request<SandboxChat>('PUT', `/chats/${chatId}/bot/rights`, { user_id: userId, permissions });
  }

  /** The person comments on a channel post (comment_created). */
  async comment(userId: number, postId: string, text: string): Promise<SandboxMessage> {
    return (
      await this.request<{ message: SandboxMessage }>('POST', '/comments', {
        user_id: userId,
        post_id: postId,
        text,
      })
    ).message;
  }
  /** The person edits their comment (comment_edited). */
  async editComment(userId: number, commentId: string, text: string): Promise<SandboxMessage> {
    return (
      await this.request<{ message: SandboxMessage }>('PUT', '/comments', {
        user_id: userId,
        comment_id: commentId,
        text,
      })
    ).message;
  }
  /** The person deletes their comment (comment_removed). */
  deleteComment(userId: number, commentId: string) {
    return this.request<{ success: boolean }>('DELETE', '/comments', undefined, {
      user_id: userId,
      comment_id: commentId,
    });
  }

  /** What the person sees in a chat (their dialog with the bot by default). */
  view(userId: number, chat: ChatRef = 'dialog') {
    return this.request<PersonView>('GET', '/view', undefined, {
      user_id: userId,
      chat_id: this.chatOf(chat),
    });
  }

  /** Polls `view` until `predicate` holds; rejects with the last view after `timeoutMs` (default 10 s). */
  async waitForView(
    userId: number,
    chat: ChatRef,
    predicate: (view: PersonView) => boolean,
    options: { timeoutMs?: number; intervalMs?: number } = {},
  ): Promise<PersonView> {
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    for (;;) {
      const v = await this.view(userId, chat);
      if (predicate(v)) return v;
      if (Date.now() > deadline) {
        throw new BotflowError(
          'BOTFLOW_SANDBOX_USAGE',
          `waitForView: condition not met in time; last view: ${JSON.stringify(v.messages.map((m) => m.text))}`,
        );
      }
      await new Promise((r) => setTimeout(r, options.intervalMs ?? 25));
    }
  }

  /** Notifications (callback answers) shown to the person. */
  notifications(userId: number) {
    return this.request<{
      notifications: { chat_id: number; text: string; mid?: string; timestamp: number; shown?: boolean }[];
    }>('GET', '/notifications', undefined, { user_id: userId });
  }

  /** The Bot API request log (see RequestLog). */
  async requests(since?: number): Promise<LoggedRequest[]> {
    return (await this.request<{ requests: LoggedRequest[] }>('GET', '/requests', undefined, { since }))
      .requests;
  }

  /** Webhook delivery attempts and backlogs. */
  deliveries() {
    return this.request<{ attempts: Json[]; backlog: Record<string, number>; pending_polling: number }>(
      'GET',
      '/deliveries',
    );
  }

  /**
   * Follows `/_sandbox/events` (server-sent events) and calls `onEvent` for each; `close()` stops.
   * Resolves once the stream is open.
   */
  async events(
    onEvent: (event: FeedEvent & { id: number }) => void,
    filter: { user_id?: number; chat_id?: number } = {},
  ): Promise<{ close(): void }> {
    const query = { ...filter, ...(this.botId !== undefined ? { bot_id: this.botId } : {}) };
    const qs = Object.entries(query)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    return followEvents(this.pool, `/_sandbox/events${qs ? `?${qs}` : ''}`, onEvent);
  }

  /** Closes the client's connections (a client made by `forBot` shares them: its close does nothing). */
  close(): Promise<void> {
    return this.ownsPool ? this.pool.close() : Promise.resolve();
  }
}
