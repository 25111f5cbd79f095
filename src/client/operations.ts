/**
 * Every operation of the Bot API, as data: method, path, which arguments go in the path, the query
 * and the body, how the answer decodes, and what the scheduler needs to know (which chat it counts
 * against, whether it is safe to repeat). The client, the rate limiter, the outbox and the sandbox's
 * tests all read this one table.
 */
import { z } from 'zod';
import * as S from './schemas/index.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OperationSpec {
  method: HttpMethod;
  /** Path with `{name}` placeholders filled from the argument of the same name. */
  path: string;
  /** Arguments sent in the query string (arrays comma-separated). */
  query?: readonly string[];
  /** Arguments sent as JSON body fields; `'rest'` sends every argument not used in path or query. */
  body?: readonly string[] | 'rest';
  /** Schema of a 200 answer. */
  result: z.ZodType;
  /**
   * Counts against the per-chat limit of 2/s (send, edit, delete, callback answers). The chat comes
   * from `chat_id`, or from `user_id` for a dialog, or from the caller's hint.
   */
  chatScoped?: boolean;
  /**
   * Tied to the chat of its `chat_id` without counting against the per-chat limit (the platform does
   * not count it): the scheduler runs it in that chat's lane, in order with the chat's other calls.
   */
  chatLane?: boolean;
  /** Repeating it after an ambiguous failure cannot do harm. */
  idempotent: boolean;
  /** Writes something (the outbox may send it); reads are never effects. */
  write: boolean;
  /** Deprecated: the client warns once when it is used. */
  deprecated?: string;
}

const R = S.SimpleQueryResult;

export const OPERATIONS = {
  getMyInfo: { method: 'GET', path: '/me', result: S.BotInfo, idempotent: true, write: false },
  editMyCommands: {
    method: 'PATCH',
    path: '/me/commands',
    body: ['commands'],
    result: S.obj({ commands: z.array(S.Command).optional() }),
    idempotent: true,
    write: true,
  },
  getChat: { method: 'GET', path: '/chats/{chat_id}', result: S.Chat, idempotent: true, write: false },
  editChat: {
    method: 'PATCH',
    path: '/chats/{chat_id}',
    body: ['icon', 'title', 'description', 'pin', 'notify'],
    result: S.Chat,
    idempotent: true,
    write: true,
  },
  sendAction: {
    method: 'POST',
    path: '/chats/{chat_id}/actions',
    body: ['action'],
    result: R,
    chatLane: true,
    idempotent: true,
    write: true,
  },
  getPinnedMessage: {
    method: 'GET',
    path: '/chats/{chat_id}/pin',
    result: S.PinnedMessageResult,
    idempotent: true,
    write: false,
  },
  pinMessage: {
    method: 'PUT',
    path: '/chats/{chat_id}/pin',
    body: ['message_id', 'notify'],
    result: R,
    idempotent: true,
    write: true,
  },
  unpinMessage: { method: 'DELETE', path: '/chats/{chat_id}/pin', result: R, idempotent: true, write: true },
  getMembership: {
    method: 'GET',
    path: '/chats/{chat_id}/members/me',
    result: S.ChatMember,
    idempotent: true,
    write: false,
  },
  leaveChat: {
    method: 'DELETE',
    path: '/chats/{chat_id}/members/me',
    result: R,
    idempotent: true,
    write: true,
  },
  getAdmins: {
    method: 'GET',
    path: '/chats/{chat_id}/members/admins',
    result: S.ChatMembersList,
    idempotent: true,
    write: false,
  },
  setAdmins: {
    method: 'POST',
    path: '/chats/{chat_id}/members/admins',
    body: ['admins'],
    result: R,
    idempotent: true,
    write: true,
  },
  revokeAdmin: {
    method: 'DELETE',
    path: '/chats/{chat_id}/members/admins/{user_id}',
    result: R,
    idempotent: true,
    write: true,
  },
  getMembers: {
    method: 'GET',
    path: '/chats/{chat_id}/members',
    query: ['user_ids', 'marker', 'count'],
    result: S.ChatMembersList,
    idempotent: true,
    write: false,
  },
  addMembers: {
    method: 'POST',
    path: '/chats/{chat_id}/members',
    body: ['user_ids'],
    result: S.ModifyMembersResult,
    idempotent: true,
    write: true,
    deprecated: 'POST /chats/{chatId}/members is removed by the platform from 30 September 2026',
  },
  removeMember: {
    method: 'DELETE',
    path: '/chats/{chat_id}/members',
    query: ['user_id', 'block'],
    result: R,
    idempotent: true,
    write: true,
  },
  getSubscriptions: {
    method: 'GET',
    path: '/subscriptions',
    result: S.SubscriptionList,
    idempotent: true,
    write: false,
  },
  subscribe: {
    method: 'POST',
    path: '/subscriptions',
    body: ['url', 'secret', 'update_types', 'version'],
    result: R,
    idempotent: true,
    write: true,
  },
  unsubscribe: {
    method: 'DELETE',
    path: '/subscriptions',
    query: ['url'],
    result: R,
    idempotent: true,
    write: true,
  },
  getUploadUrl: {
    method: 'POST',
    path: '/uploads',
    query: ['type'],
    result: S.UploadEndpoint,
    idempotent: true,
    write: false,
  },
  getMessages: {
    method: 'GET',
    path: '/messages',
    query: ['chat_id', 'message_ids', 'from', 'to', 'count'],
    result: S.MessageList,
    chatLane: true,
    idempotent: true,
    write: false,
  },
  sendMessage: {
    method: 'POST',
    path: '/messages',
    query: ['chat_id', 'user_id', 'disable_link_preview'],
    body: 'rest',
    result: S.SendMessageResult,
    chatScoped: true,
    idempotent: false,
    write: true,
  },
  editMessage: {
    method: 'PUT',
    path: '/messages',
    query: ['message_id'],
    body: 'rest',
    result: R,
    chatScoped: true,
    idempotent: true,
    write: true,
  },
  deleteMessage: {
    method: 'DELETE',
    path: '/messages',
    query: ['message_id'],
    result: R,
    chatScoped: true,
    idempotent: true,
    write: true,
  },
  getMessage: {
    method: 'GET',
    path: '/messages/{message_id}',
    result: S.Message,
    idempotent: true,
    write: false,
  },
  getComments: {
    method: 'GET',
    path: '/messages/{message_id}/comments',
    query: ['count', 'before', 'after', 'comment_ids'],
    result: S.CommentList,
    idempotent: true,
    write: false,
  },
  getComment: {
    method: 'GET',
    path: '/messages/{message_id}/comments/{comment_id}',
    result: S.CommentMessage,
    idempotent: true,
    write: false,
  },
  sendComment: {
    method: 'POST',
    path: '/messages/{message_id}/comments',
    query: ['disable_link_preview'],
    body: 'rest',
    result: S.SendCommentResult,
    idempotent: false,
    write: true,
  },
  editComment: {
    method: 'PUT',
    path: '/messages/{message_id}/comments',
    query: ['comment_id'],
    body: 'rest',
    result: R,
    idempotent: true,
    write: true,
  },
  deleteComment: {
    method: 'DELETE',
    path: '/messages/{message_id}/comments',
    query: ['comment_id'],
    result: R,
    idempotent: true,
    write: true,
  },
  getVideoAttachmentDetails: {
    method: 'GET',
    path: '/videos/{video_token}',
    result: S.VideoAttachmentDetails,
    idempotent: true,
    write: false,
  },
  answerCallback: {
    method: 'POST',
    path: '/answers',
    query: ['callback_id'],
    body: ['notification', 'message'],
    result: R,
    chatScoped: true,
    idempotent: true,
    write: true,
  },
  /** Same endpoint as answerCallback; the answer carries a `message` that replaces the original one. */
  answerCallbackResult: {
    method: 'POST',
    path: '/answers',
    query: ['callback_id'],
    body: ['notification', 'message'],
    result: R,
    chatScoped: true,
    idempotent: true,
    write: true,
  },
  getUpdates: {
    method: 'GET',
    path: '/updates',
    query: ['limit', 'timeout', 'marker', 'types'],
    result: S.UpdateList,
    idempotent: true,
    write: false,
  },
} as const satisfies Record<string, OperationSpec>;

/** The name of an operation of the Bot API (`'sendMessage'`, `'getChat'`, …): what `api.call(op, args)` takes. */
export type OperationName = keyof typeof OPERATIONS;

export function isOperation(name: string): name is OperationName {
  return Object.hasOwn(OPERATIONS, name);
}
