/**
 * The typed Bot API client: one method per operation of the spec, each taking ONE argument object
 * (path parameters, query parameters and body fields together) and resolving with the decoded
 * answer. `call(op, args)` (from BotApiCore) does the same keyed by operation name, for the
 * scheduler and the outbox. Arguments are checked against the documented limits before sending.
 *
 * Failures: ApiError (the platform said no), NetworkError (no answer; `sent` says whether it may
 * have arrived), UsageError (refused before sending), ResponseDecodeError (2xx with a bad body).
 * A write answering `{success: false}` is returned, not thrown: test it with `isFailure()`.
 */
import { BotApiCore, type CallOptions } from './client-core.ts';
import type { OperationArgs as A, OperationResult as R } from './operation-types.ts';

export {
  BotApiCore,
  type BotApiOptions,
  type CallOptions,
  isFailure,
  POLL_TIMEOUT_MARGIN_MS,
} from './client-core.ts';
export type { OperationArgs, OperationResult } from './operation-types.ts';

type O = CallOptions;

/**
 * The Bot API client. Create one per bot token; `close()` it on shutdown.
 *
 * @example
 * ```ts
 * import { BotApi } from 'botflow-engine/client';
 *
 * const api = new BotApi({ token: process.env.BOT_TOKEN ?? '', baseUrl: 'https://platform-api2.max.ru' });
 * const me = await api.getMyInfo();
 * await api.sendMessage({ chat_id: 42, text: `Hello from @${me.username}` });
 * await api.close();
 * ```
 */
export class BotApi extends BotApiCore {
  // ---- The bot itself ----

  /** GET /me: the bot's own profile and commands. */
  getMyInfo(options?: O): Promise<R<'getMyInfo'>> {
    return this.call('getMyInfo', {}, options);
  }
  /** PATCH /me/commands: replaces the bot's command menu; `[]` clears it. */
  editMyCommands(args: A<'editMyCommands'>, options?: O): Promise<R<'editMyCommands'>> {
    return this.call('editMyCommands', args, options);
  }

  // ---- Chats ----

  /** GET /chats/{chat_id}: one chat. */
  getChat(args: A<'getChat'>, options?: O): Promise<R<'getChat'>> {
    return this.call('getChat', args, options);
  }
  /** PATCH /chats/{chat_id}: changes icon, title, description, pinned message; answers the updated chat. */
  editChat(args: A<'editChat'>, options?: O): Promise<R<'editChat'>> {
    return this.call('editChat', args, options);
  }
  /** POST /chats/{chat_id}/actions: shows "typing…", "sending photo…", or marks the chat seen. */
  sendAction(args: A<'sendAction'>, options?: O): Promise<R<'sendAction'>> {
    return this.call('sendAction', args, options);
  }
  /** GET /chats/{chat_id}/pin: the pinned message, if any. */
  getPinnedMessage(args: A<'getPinnedMessage'>, options?: O): Promise<R<'getPinnedMessage'>> {
    return this.call('getPinnedMessage', args, options);
  }
  /** PUT /chats/{chat_id}/pin: pins a message. */
  pinMessage(args: A<'pinMessage'>, options?: O): Promise<R<'pinMessage'>> {
    return this.call('pinMessage', args, options);
  }
  /** DELETE /chats/{chat_id}/pin: unpins the pinned message. */
  unpinMessage(args: A<'unpinMessage'>, options?: O): Promise<R<'unpinMessage'>> {
    return this.call('unpinMessage', args, options);
  }

  // ---- Members and admins ----

  /** GET /chats/{chat_id}/members/me: the bot's own membership (admin? permissions?). */
  getMembership(args: A<'getMembership'>, options?: O): Promise<R<'getMembership'>> {
    return this.call('getMembership', args, options);
  }
  /** DELETE /chats/{chat_id}/members/me: the bot leaves the chat. */
  leaveChat(args: A<'leaveChat'>, options?: O): Promise<R<'leaveChat'>> {
    return this.call('leaveChat', args, options);
  }
  /** GET /chats/{chat_id}/members/admins: the chat's admins. */
  getAdmins(args: A<'getAdmins'>, options?: O): Promise<R<'getAdmins'>> {
    return this.call('getAdmins', args, options);
  }
  /** POST /chats/{chat_id}/members/admins: makes members admins; replaces each one's permission set. */
  setAdmins(args: A<'setAdmins'>, options?: O): Promise<R<'setAdmins'>> {
    return this.call('setAdmins', args, options);
  }
  /** DELETE /chats/{chat_id}/members/admins/{user_id}: removes admin rights (the member stays). */
  revokeAdmin(args: A<'revokeAdmin'>, options?: O): Promise<R<'revokeAdmin'>> {
    return this.call('revokeAdmin', args, options);
  }
  /** GET /chats/{chat_id}/members: one page of members; pass `marker` for the next. */
  getMembers(args: A<'getMembers'>, options?: O): Promise<R<'getMembers'>> {
    return this.call('getMembers', args, options);
  }
  /**
   * POST /chats/{chat_id}/members: adds members.
   * @deprecated The platform removes this endpoint from 30 September 2026; the client logs a warning once.
   */
  addMembers(args: A<'addMembers'>, options?: O): Promise<R<'addMembers'>> {
    return this.call('addMembers', args, options);
  }
  /** DELETE /chats/{chat_id}/members: removes a member, optionally blocking them. */
  removeMember(args: A<'removeMember'>, options?: O): Promise<R<'removeMember'>> {
    return this.call('removeMember', args, options);
  }

  // ---- Webhook subscriptions ----

  /** GET /subscriptions: the webhook subscriptions. */
  getSubscriptions(options?: O): Promise<R<'getSubscriptions'>> {
    return this.call('getSubscriptions', {}, options);
  }
  /** POST /subscriptions: subscribes a public HTTPS URL to updates (optionally with a secret). */
  subscribe(args: A<'subscribe'>, options?: O): Promise<R<'subscribe'>> {
    return this.call('subscribe', args, options);
  }
  /** DELETE /subscriptions?url=: removes a subscription. */
  unsubscribe(args: A<'unsubscribe'>, options?: O): Promise<R<'unsubscribe'>> {
    return this.call('unsubscribe', args, options);
  }

  // ---- Uploads ----

  /** POST /uploads?type=: an upload URL for one file (and, for video and audio, its token). */
  getUploadUrl(args: A<'getUploadUrl'>, options?: O): Promise<R<'getUploadUrl'>> {
    return this.call('getUploadUrl', args, options);
  }

  // ---- Messages ----

  /** GET /messages: messages of a chat (`chat_id`, `from`, `to`, `count`) or by id (`message_ids`). */
  getMessages(args: A<'getMessages'>, options?: O): Promise<R<'getMessages'>> {
    return this.call('getMessages', args, options);
  }
  /** POST /messages: sends a message to exactly one target, `chat_id` or `user_id`. */
  sendMessage(args: A<'sendMessage'>, options?: O): Promise<R<'sendMessage'>> {
    return this.call('sendMessage', args, options);
  }
  /** PUT /messages: edits a message; `attachments` omitted keeps them, `[]` removes them all. */
  editMessage(args: A<'editMessage'>, options?: O): Promise<R<'editMessage'>> {
    return this.call('editMessage', args, options);
  }
  /** DELETE /messages: deletes a message. */
  deleteMessage(args: A<'deleteMessage'>, options?: O): Promise<R<'deleteMessage'>> {
    return this.call('deleteMessage', args, options);
  }
  /** GET /messages/{message_id}: one message. */
  getMessage(args: A<'getMessage'>, options?: O): Promise<R<'getMessage'>> {
    return this.call('getMessage', args, options);
  }

  // ---- Comments on channel posts ----

  /** GET /messages/{message_id}/comments: comments of a post. */
  getComments(args: A<'getComments'>, options?: O): Promise<R<'getComments'>> {
    return this.call('getComments', args, options);
  }
  /** GET /messages/{message_id}/comments/{comment_id}: one comment. */
  getComment(args: A<'getComment'>, options?: O): Promise<R<'getComment'>> {
    return this.call('getComment', args, options);
  }
  /** POST /messages/{message_id}/comments: comments on a post. */
  sendComment(args: A<'sendComment'>, options?: O): Promise<R<'sendComment'>> {
    return this.call('sendComment', args, options);
  }
  /** PUT /messages/{message_id}/comments?comment_id=: edits a comment. */
  editComment(args: A<'editComment'>, options?: O): Promise<R<'editComment'>> {
    return this.call('editComment', args, options);
  }
  /** DELETE /messages/{message_id}/comments?comment_id=: deletes a comment. */
  deleteComment(args: A<'deleteComment'>, options?: O): Promise<R<'deleteComment'>> {
    return this.call('deleteComment', args, options);
  }

  // ---- Media, callbacks, updates ----

  /** GET /videos/{video_token}: a video's URLs, size and duration. */
  getVideoAttachmentDetails(
    args: A<'getVideoAttachmentDetails'>,
    options?: O,
  ): Promise<R<'getVideoAttachmentDetails'>> {
    return this.call('getVideoAttachmentDetails', args, options);
  }
  /**
   * POST /answers?callback_id=: answers a button press with a notification and/or a new message.
   * A notification-only answer may not be displayed by clients; `{success: false}` is returned, not thrown.
   */
  answerCallback(args: A<'answerCallback'>, options?: O): Promise<R<'answerCallback'>> {
    return this.call('answerCallback', args, options);
  }
  /** POST /answers?callback_id=: answers a button press by replacing the original message with `message`. */
  answerCallbackResult(args: A<'answerCallbackResult'>, options?: O): Promise<R<'answerCallbackResult'>> {
    return this.call('answerCallbackResult', args, options);
  }
  /**
   * GET /updates: long polling (development and tests; not while a webhook is subscribed). The HTTP
   * timeout is the poll `timeout` plus a margin. Pass the returned `marker` to the next call.
   */
  getUpdates(args: A<'getUpdates'> = {}, options?: O): Promise<R<'getUpdates'>> {
    return this.call('getUpdates', args, options);
  }
}
