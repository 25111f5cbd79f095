import { z } from 'zod';
import { int, obj, timestamp } from './common.ts';

/**
 * A person or a bot. `name` is the legacy full name, still returned.
 *
 * @example
 * ```ts
 * import { BotApi, type User } from 'botflow-engine/client';
 *
 * const api = new BotApi({ token: process.env.BOT_TOKEN ?? '', baseUrl: 'https://platform-api2.max.ru' });
 * const me: User = await api.getMyInfo();
 * console.log(me.user_id, me.username);
 * ```
 */
export const User = obj({
  user_id: int,
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  username: z.string().optional(),
  is_bot: z.boolean().optional(),
  last_activity_time: timestamp.optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  avatar_url: z.string().optional(),
  full_avatar_url: z.string().optional(),
});
export type User = z.infer<typeof User>;

/** A bot command as shown in the client's menu. */
export const Command = obj({
  name: z.string(),
  description: z.string().optional(),
});
export type Command = z.infer<typeof Command>;

/** GET /me. */
export const BotInfo = User.extend({
  commands: z.array(Command).optional(),
});
export type BotInfo = z.infer<typeof BotInfo>;

export const ChatType = z.string(); // dialog | chat | channel (kept open)
export const ChatStatus = z.string(); // active | removed | left | closed (kept open)

export const Image = obj({ url: z.string() });

/** Admin permissions: write, edit, delete when assigning; legacy names may still appear in responses. */
export const AdminPermission = z.string();
export type AdminPermission = z.infer<typeof AdminPermission>;
export const ASSIGNABLE_PERMISSIONS = [
  'read_all_messages',
  'add_remove_members',
  'add_admins',
  'change_chat_info',
  'pin_message',
  'write',
  'edit',
  'delete',
  'can_call',
  'edit_link',
  'view_stats',
] as const;
export const LEGACY_PERMISSIONS = ['post_edit_delete_message', 'edit_message', 'delete_message'] as const;

/** A member of a group chat or channel. */
export const ChatMember = User.extend({
  last_access_time: timestamp.optional(),
  is_owner: z.boolean().optional(),
  is_admin: z.boolean().optional(),
  join_time: timestamp.optional(),
  permissions: z.array(AdminPermission).optional(),
  alias: z.string().optional(),
});
export type ChatMember = z.infer<typeof ChatMember>;

export const ChatMembersList = obj({
  members: z.array(ChatMember),
  marker: int.optional(),
});
export type ChatMembersList = z.infer<typeof ChatMembersList>;

/** An admin entry of POST /chats/{chatId}/members/admins. */
export const ChatAdmin = obj({
  user_id: int,
  permissions: z.array(AdminPermission),
  alias: z.string().optional(),
});
export type ChatAdmin = z.infer<typeof ChatAdmin>;

/** Result of most write operations. `success: false` is returned, not thrown. */
export const SimpleQueryResult = obj({
  success: z.boolean(),
  message: z.string().optional(),
});
export type SimpleQueryResult = z.infer<typeof SimpleQueryResult>;

/** Result of the deprecated POST /chats/{chatId}/members. */
export const ModifyMembersResult = SimpleQueryResult.extend({
  failed_user_ids: z.array(int).optional(),
  failed_user_details: z.array(obj({ error_code: z.string(), user_ids: z.array(int) })).optional(),
});
export type ModifyMembersResult = z.infer<typeof ModifyMembersResult>;

/** A webhook subscription as listed by GET /subscriptions. */
export const Subscription = obj({
  url: z.string(),
  time: timestamp.optional(),
  update_types: z.array(z.string()).optional(),
  secret: z.string().optional(),
  version: z.string().optional(),
});
export type Subscription = z.infer<typeof Subscription>;

export const SubscriptionList = obj({ subscriptions: z.array(Subscription) });
export type SubscriptionList = z.infer<typeof SubscriptionList>;

/** POST /uploads → where to send the file, and for video and audio the attachment token. */
export const UploadEndpoint = obj({
  url: z.string(),
  token: z.string().optional(),
});
export type UploadEndpoint = z.infer<typeof UploadEndpoint>;

export const UPLOAD_TYPES = ['image', 'video', 'audio', 'file'] as const;
export const UploadType = z.enum(UPLOAD_TYPES);
export type UploadType = z.infer<typeof UploadType>;

/** What the upload host answers for an image: tokens keyed by an opaque photo key. */
export const PhotoTokens = obj({
  photos: z.record(z.string(), obj({ token: z.string() })),
});
export type PhotoTokens = z.infer<typeof PhotoTokens>;

/** What the upload host answers for a file. */
export const UploadedInfo = obj({ token: z.string().optional() });
export type UploadedInfo = z.infer<typeof UploadedInfo>;

export const VideoUrls = obj({
  mp4_1080: z.string().optional(),
  mp4_720: z.string().optional(),
  mp4_480: z.string().optional(),
  mp4_360: z.string().optional(),
  mp4_240: z.string().optional(),
  mp4_144: z.string().optional(),
  hls: z.string().optional(),
});

/** GET /videos/{videoToken}. */
export const VideoAttachmentDetails = obj({
  token: z.string(),
  urls: VideoUrls.optional(),
  thumbnail: obj({
    url: z.string().optional(),
    token: z.string().optional(),
    photo_id: int.optional(),
  }).optional(),
  width: int.optional(),
  height: int.optional(),
  duration: int.optional(),
});
export type VideoAttachmentDetails = z.infer<typeof VideoAttachmentDetails>;

export const SENDER_ACTIONS = [
  'typing_on',
  'sending_photo',
  'sending_video',
  'sending_audio',
  'sending_file',
  'mark_seen',
] as const;
export const SenderAction = z.enum(SENDER_ACTIONS);
export type SenderAction = z.infer<typeof SenderAction>;

/** Platform error body for every non-200 status. */
export const ErrorBody = obj({
  code: z.string().optional(),
  message: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
