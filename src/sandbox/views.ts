/**
 * How the platform shows its records to a client: users with the legacy `name`, chats with
 * `dialog_with_user`, members with permissions (legacy names included), messages with sender and
 * recipient. Empty fields are omitted, as the platform does.
 */
import type {
  ChatRecord,
  CommentRecord,
  MemberRecord,
  MessageRecord,
  SandboxData,
  UserRecord,
} from './state.ts';
import { reportedPermissions } from './state.ts';

type Json = Record<string, unknown>;

/** Drops undefined members so answers carry no empty fields. */
export function compact<T extends Json>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

export function userView(u: UserRecord): Json {
  const name = [u.first_name, u.last_name].filter(Boolean).join(' ');
  return compact({
    user_id: u.user_id,
    first_name: u.first_name,
    last_name: u.last_name,
    username: u.username,
    is_bot: u.is_bot,
    last_activity_time: u.last_activity_time,
    description: u.description,
    name,
  });
}

export function botInfoView(data: SandboxData): Json {
  return compact({ ...userView(data.bot), commands: data.commands.length ? data.commands : undefined });
}

function userById(data: SandboxData, id: number): UserRecord | undefined {
  return id === data.bot.user_id ? data.bot : data.users[String(id)];
}

export function memberView(data: SandboxData, m: MemberRecord, legacyNames: boolean): Json {
  const u = userById(data, m.user_id);
  return compact({
    ...(u ? userView(u) : { user_id: m.user_id }),
    last_access_time: m.last_access_time,
    is_owner: m.is_owner,
    is_admin: m.is_admin,
    join_time: m.join_time,
    permissions: m.is_admin ? reportedPermissions(m.permissions, legacyNames) : undefined,
    alias: m.alias,
  });
}

export function recipientView(data: SandboxData, chat: ChatRecord, senderId: number): Json {
  if (chat.type !== 'dialog') return { chat_id: chat.chat_id, chat_type: chat.type };
  // In a dialog the recipient's user_id is the other side of the conversation.
  const other = senderId === data.bot.user_id ? chat.dialog_user_id : data.bot.user_id;
  return { chat_id: chat.chat_id, chat_type: 'dialog', user_id: other };
}

export function messageView(data: SandboxData, m: MessageRecord): Json {
  const chat = data.chats[String(m.chat_id)];
  const sender = userById(data, m.sender_id);
  const linked = m.link ? data.messages[m.link.mid] : undefined;
  const linkedSender = linked ? userById(data, linked.sender_id) : undefined;
  return compact({
    sender: sender && chat?.type !== 'channel' ? userView(sender) : undefined,
    recipient: chat ? recipientView(data, chat, m.sender_id) : { chat_id: m.chat_id },
    timestamp: m.timestamp,
    link:
      m.link && linked
        ? compact({
            type: m.link.type,
            sender: linkedSender ? userView(linkedSender) : undefined,
            chat_id: linked.chat_id,
            message: messageBody(linked),
          })
        : undefined,
    body: messageBody(m),
    stat: chat?.type === 'channel' ? { views: m.views } : undefined,
    url: chat?.type === 'channel' && chat.link ? `${chat.link}/${m.mid}` : undefined,
  });
}

function messageBody(m: MessageRecord): Json {
  return compact({
    mid: m.mid,
    seq: m.seq,
    text: m.text,
    attachments: m.attachments?.length ? m.attachments : undefined,
    markup: m.markup?.length ? m.markup : undefined,
  });
}

export function commentView(data: SandboxData, c: CommentRecord): Json {
  const sender = userById(data, c.sender_id);
  return compact({
    sender: sender ? userView(sender) : undefined,
    recipient: { chat_id: c.chat_id, chat_type: 'channel' },
    timestamp: c.timestamp,
    link: c.link,
    body: compact({ mid: c.comment_id, seq: c.seq, text: c.text }),
  });
}

export function chatView(data: SandboxData, chat: ChatRecord): Json {
  const pinned = chat.pinned_mid ? data.messages[chat.pinned_mid] : undefined;
  const dialogUser = chat.dialog_user_id ? data.users[String(chat.dialog_user_id)] : undefined;
  return compact({
    chat_id: chat.chat_id,
    type: chat.type,
    status: chat.status,
    title: chat.title,
    icon: chat.icon,
    last_event_time: chat.last_event_time,
    participants_count: chat.type === 'dialog' ? 2 : Object.keys(chat.members).length,
    owner_id: chat.owner_id,
    is_public: chat.is_public,
    link: chat.link,
    description: chat.description,
    dialog_with_user: dialogUser ? userView(dialogUser) : undefined,
    messages_count: chat.mids.length,
    pinned_message: pinned ? messageView(data, pinned) : undefined,
  });
}
