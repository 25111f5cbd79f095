/**
 * The sandbox platform's core: its data, its clock, and the few operations both sides (the bot's API
 * and the people's control API) share: finding chats and messages, checking the bot's rights,
 * creating messages and publishing updates.
 */
import type { Logger } from 'pino';
import type { UpdateHub } from './delivery/hub.ts';
import { accessDenied, chatDenied, notFound } from './errors.ts';
import type { PeopleFeed } from './feed.ts';
import { FIRST_DIALOG_ID, FIRST_GROUP_ID, messageId, seqNumber } from './ids.ts';
import type { ChatKind, ChatRecord, MediaKind, MessageRecord, SandboxData, UserRecord } from './state.ts';
import { chatView, messageView, userView } from './views.ts';

export interface PlatformSettings {
  now: () => number;
  attachmentProcessingMs: Record<MediaKind, number>;
  legacyPermissionNames: boolean;
  /** Show notification-only callback answers to people (the platform's clients do not); marked when shown. */
  showNotificationOnlyAnswers: boolean;
  /** Shares (0..1) of button presses whose update lacks `message`, or (in dialogs) `message.recipient.chat_id`. */
  callbackVariants: { withoutMessage: number; withoutChatId: number };
  /**
   * In group chats a bot without `read_all_messages` gets only commands, messages mentioning it and
   * replies to its messages (the conservative reading where the spec is silent). False: every message.
   */
  groupPrivacy: boolean;
  logger?: Logger;
}

/** Shared state and behaviour of the sandbox. */
export class Platform {
  /** Scheme, host and port clients reach the sandbox at (set when it listens); used in file and upload URLs. */
  origin = 'http://127.0.0.1';
  /**
   * Whether another bot of the same sandbox has this chat (or, with a string, this message): such ids are
   * answered `chat.denied`, as the platform answers a bot about a chat it is not in (set by SandboxBots).
   */
  elsewhere: (id: number | string) => boolean = () => false;

  constructor(
    public data: SandboxData,
    readonly settings: PlatformSettings,
    readonly hub: UpdateHub,
    readonly feed: PeopleFeed,
  ) {}

  now(): number {
    return this.settings.now();
  }

  get botId(): number {
    return this.data.bot.user_id;
  }

  user(id: number): UserRecord {
    const u = this.data.users[String(id)];
    if (!u) throw notFound(`User ${id} not found`);
    return u;
  }

  chat(id: number): ChatRecord {
    const c = this.data.chats[String(id)];
    if (!c && this.elsewhere(id)) throw chatDenied(`The bot is not a member of chat ${id}`);
    if (!c) throw notFound(`Chat ${id} not found`);
    return c;
  }

  message(mid: string): MessageRecord {
    const m = this.data.messages[mid];
    if (!m && this.elsewhere(mid)) throw chatDenied(`The bot is not a member of the chat of message ${mid}`);
    if (!m) throw notFound(`Message ${mid} not found`);
    return m;
  }

  /** The dialog between a person and the bot, created on first use. */
  dialogOf(userId: number): ChatRecord {
    const existing = this.data.dialogs[String(userId)];
    if (existing !== undefined) return this.chat(existing);
    this.user(userId);
    const chat = this.newChat('dialog', { dialog_user_id: userId });
    this.data.dialogs[String(userId)] = chat.chat_id;
    return chat;
  }

  newChat(type: ChatKind, fields: Partial<ChatRecord>): ChatRecord {
    const c = this.data.counters;
    const chat_id =
      fields.chat_id ?? (type === 'dialog' ? FIRST_DIALOG_ID + ++c.dialog : FIRST_GROUP_ID - ++c.chat);
    const now = this.now();
    const chat: ChatRecord = {
      chat_id,
      type,
      status: 'active',
      members: {},
      is_public: false,
      created: now,
      last_event_time: now,
      mids: [],
      ...fields,
    };
    this.data.chats[String(chat_id)] = chat;
    return chat;
  }

  /** True when the bot can see the chat (dialog with it, or a member of the group/channel). */
  botIsIn(chat: ChatRecord): boolean {
    if (chat.type === 'dialog') return chat.status !== 'removed';
    return Boolean(chat.members[String(this.botId)]);
  }

  /**
   * Whether the bot gets a person's message in `chat`: always in dialogs and channels, and in group chats
   * when it may read everything (`read_all_messages`) or the message is for it: a command, a mention of
   * the bot, or a reply to one of its messages.
   */
  botSees(chat: ChatRecord, msg: MessageRecord): boolean {
    if (chat.type !== 'chat' || !this.settings.groupPrivacy) return true;
    if (msg.sender_id === this.botId) return true;
    if (chat.members[String(this.botId)]?.permissions.includes('read_all_messages')) return true;
    const text = msg.text ?? '';
    if (text.trimStart().startsWith('/')) return true;
    const username = this.data.bot.username;
    if (username && text.toLowerCase().includes(`@${username.toLowerCase()}`)) return true;
    const replied = msg.link?.type === 'reply' ? this.data.messages[msg.link.mid] : undefined;
    return replied?.sender_id === this.botId;
  }

  /** The chat as the bot may see it: 404 when unknown, 403 when the bot is not in it. */
  botChat(id: number): ChatRecord {
    const chat = this.chat(id);
    if (!this.botIsIn(chat)) throw chatDenied(`The bot is not a member of chat ${id}`);
    return chat;
  }

  /** True when the bot holds `permission` in `chat` (dialogs: always). */
  botCan(chat: ChatRecord, permission: string): boolean {
    if (chat.type === 'dialog') return true;
    const me = chat.members[String(this.botId)];
    return Boolean(me?.is_owner || (me?.is_admin && me.permissions.includes(permission)));
  }

  requireBotRight(chat: ChatRecord, permission: string, action: string): void {
    if (!this.botCan(chat, permission)) {
      throw accessDenied(
        `The bot needs the "${permission}" admin permission in chat ${chat.chat_id} to ${action}`,
      );
    }
  }

  /** Stores a new message in `chat` and tells people about it. */
  addMessage(chat: ChatRecord, senderId: number, fields: Partial<MessageRecord>): MessageRecord {
    const n = ++this.data.counters.message;
    const now = this.now();
    const msg: MessageRecord = {
      mid: messageId(chat.chat_id, n),
      seq: seqNumber(n),
      chat_id: chat.chat_id,
      sender_id: senderId,
      timestamp: now,
      views: 0,
      ...fields,
    };
    this.data.messages[msg.mid] = msg;
    chat.mids.push(msg.mid);
    chat.last_event_time = now;
    this.touch(senderId);
    this.feed.emit({ type: 'message.created', chat_id: chat.chat_id, message: messageView(this.data, msg) });
    return msg;
  }

  /** Removes a message everywhere and tells people. */
  removeMessage(msg: MessageRecord): void {
    delete this.data.messages[msg.mid];
    const chat = this.data.chats[String(msg.chat_id)];
    if (chat) {
      chat.mids = chat.mids.filter((m) => m !== msg.mid);
      if (chat.pinned_mid === msg.mid) chat.pinned_mid = undefined;
    }
    this.feed.emit({ type: 'message.removed', chat_id: msg.chat_id, message_id: msg.mid });
  }

  /** Announces an edited message to people. */
  messageEdited(msg: MessageRecord): void {
    this.feed.emit({ type: 'message.edited', chat_id: msg.chat_id, message: messageView(this.data, msg) });
  }

  chatChanged(chat: ChatRecord): void {
    this.feed.emit({ type: 'chat.changed', chat_id: chat.chat_id, chat: chatView(this.data, chat) });
  }

  /** Publishes an update for the bot (with the envelope timestamp) when the bot can see the chat. */
  publish(update_type: string, fields: Record<string, unknown>): void {
    this.hub.publish({ update_type, timestamp: this.now(), ...stripUndefined(fields) });
  }

  /** The user as updates carry them. */
  userJson(id: number): Record<string, unknown> {
    return userView(id === this.botId ? this.data.bot : this.user(id));
  }

  touch(userId: number): void {
    const u = userId === this.botId ? this.data.bot : this.data.users[String(userId)];
    if (u) u.last_activity_time = this.now();
  }
}

function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
