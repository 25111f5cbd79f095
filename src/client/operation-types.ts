/**
 * Argument types of every operation (what a caller writes) and result types (what the schemas
 * decode). Request types are written out by hand, strictly: a typo in a field name is a compile
 * error, whereas the schemas are lenient on purpose to accept whatever the platform adds.
 */
import type { z } from 'zod';
import type { OPERATIONS, OperationName } from './operations.ts';
import type { DecodeError } from './schemas/decode.ts';
import type { SenderAction, UploadType } from './schemas/objects.ts';
import type { Update, UpdateType } from './schemas/updates.ts';

// ---- Buttons and keyboards ----

/** Presses produce `message_callback` carrying `payload` (≤ 1024 characters). */
export interface CallbackButtonInput {
  type: 'callback';
  text: string;
  payload: string;
}
/** Opens `url` (≤ 2048 characters). */
export interface LinkButtonInput {
  type: 'link';
  text: string;
  url: string;
}
/** Asks the person to share their contact. */
export interface RequestContactButtonInput {
  type: 'request_contact';
  text: string;
}
/** Asks the person to share their location; `quick` sends it without confirmation. */
export interface RequestGeoLocationButtonInput {
  type: 'request_geo_location';
  text: string;
  quick?: boolean;
}
/** Opens a mini app. */
export interface OpenAppButtonInput {
  type: 'open_app';
  text: string;
  web_app?: string;
  contact_id?: number;
  payload?: string;
}
/** Sends its text into the chat as the person. */
export interface MessageButtonInput {
  type: 'message';
  text: string;
}
/** Copies `payload` to the clipboard. */
export interface ClipboardButtonInput {
  type: 'clipboard';
  text: string;
  payload: string;
}
export type ButtonInput =
  | CallbackButtonInput
  | LinkButtonInput
  | RequestContactButtonInput
  | RequestGeoLocationButtonInput
  | OpenAppButtonInput
  | MessageButtonInput
  | ClipboardButtonInput;

/** Rows of buttons: at most 210 buttons, 30 rows, 7 per row (3 with link/open_app/geo/contact). */
export interface KeyboardInput {
  buttons: ButtonInput[][];
}

// ---- Attachments ----

export type AttachmentInput =
  | {
      type: 'image';
      payload: { url: string } | { token: string } | { photos: Record<string, { token: string }> };
    }
  | { type: 'video' | 'audio' | 'file'; payload: { token: string } }
  | { type: 'sticker'; payload: { code: string } }
  | {
      type: 'contact';
      payload: { name?: string; contact_id?: number; vcf_info?: string; vcf_phone?: string };
    }
  | { type: 'location'; latitude: number; longitude: number }
  | { type: 'share'; payload: { url?: string; token?: string } }
  | { type: 'inline_keyboard'; payload: KeyboardInput };

/** A message as sent by POST /messages, PUT /messages and POST /answers. */
export interface NewMessageInput {
  /** At most 4000 characters. */
  text?: string | null;
  /** On edit: omitted keeps the message's attachments, `[]` removes them all. At most one inline_keyboard. */
  attachments?: AttachmentInput[] | null;
  link?: { type: 'forward' | 'reply'; mid: string } | null;
  /** `false` sends silently. */
  notify?: boolean;
  format?: 'markdown' | 'html' | null;
}

/** A comment on a channel post (no attachments, no notify). */
export interface NewCommentInput {
  /** At most 4000 characters. */
  text?: string | null;
  link?: { type: 'forward' | 'reply'; mid: string } | null;
  format?: 'markdown' | 'html' | null;
}

type ChatArg = { chat_id: number };
type NoArgs = Record<string, never>;

/** Exactly one target: a chat (`chat_id`) or a person's dialog (`user_id`). */
export type MessageTarget = { chat_id: number; user_id?: never } | { user_id: number; chat_id?: never };

/** Arguments of every operation: path parameters, query parameters and body fields in one object. */
export interface OperationArgsMap {
  getMyInfo: NoArgs;
  editMyCommands: { commands: Array<{ name: string; description?: string }> };
  getChat: ChatArg;
  editChat: ChatArg & {
    icon?: { url?: string; token?: string; photos?: Record<string, { token: string }> } | null;
    title?: string;
    description?: string | null;
    /** Message id to pin. */
    pin?: string;
    notify?: boolean;
  };
  sendAction: ChatArg & { action: SenderAction };
  getPinnedMessage: ChatArg;
  pinMessage: ChatArg & { message_id: string; notify?: boolean };
  unpinMessage: ChatArg;
  getMembership: ChatArg;
  leaveChat: ChatArg;
  getAdmins: ChatArg;
  setAdmins: ChatArg & {
    admins: Array<{ user_id: number; permissions: string[]; alias?: string }>;
  };
  revokeAdmin: ChatArg & { user_id: number };
  getMembers: ChatArg & { user_ids?: number[]; marker?: number; count?: number };
  addMembers: ChatArg & { user_ids: number[] };
  removeMember: ChatArg & { user_id: number; block?: boolean };
  getSubscriptions: NoArgs;
  subscribe: { url: string; secret?: string; update_types?: string[]; version?: string };
  unsubscribe: { url: string };
  getUploadUrl: { type: UploadType };
  getMessages: ({ chat_id: number; message_ids?: never } | { message_ids: string[]; chat_id?: never }) & {
    from?: number;
    to?: number;
    count?: number;
  };
  sendMessage: MessageTarget & NewMessageInput & { disable_link_preview?: boolean };
  editMessage: { message_id: string } & NewMessageInput;
  deleteMessage: { message_id: string };
  getMessage: { message_id: string };
  getComments: {
    message_id: string;
    count?: number;
    before?: number;
    after?: number;
    comment_ids?: string[];
  };
  getComment: { message_id: string; comment_id: string };
  sendComment: { message_id: string; disable_link_preview?: boolean } & NewCommentInput;
  editComment: { message_id: string; comment_id: string } & NewCommentInput;
  deleteComment: { message_id: string; comment_id: string };
  getVideoAttachmentDetails: { video_token: string };
  /** A notification and/or a new message; neither is required. */
  answerCallback: { callback_id: string; notification?: string | null; message?: NewMessageInput | null };
  /** An answer that changes the original message (and may notify too). */
  answerCallbackResult: { callback_id: string; notification?: string | null; message: NewMessageInput };
  getUpdates: { limit?: number; timeout?: number; marker?: number | null; types?: UpdateType[] };
}

/** Compile-time guard: every operation of OPERATIONS has its argument type above. */
type RequireNever<T extends never> = T;
export type OperationsWithoutArgTypes = RequireNever<Exclude<OperationName, keyof OperationArgsMap>>;

/** Arguments of operation `Op`. */
export type OperationArgs<Op extends OperationName> = Op extends keyof OperationArgsMap
  ? OperationArgsMap[Op]
  : never;

/** An update of GET /updates that did not decode: kept as it came, with the reason. */
export interface UndecodableUpdate {
  raw: unknown;
  error: DecodeError;
}

/** GET /updates, decoded: known updates typed, unknown types as `UnknownUpdate`, broken ones set aside. */
export interface UpdatesResult {
  updates: Update[];
  /** Pass it to the next call: it acknowledges every update returned so far. */
  marker?: number;
  /** Updates of a known type whose payload did not decode (rare; logged). Never silently dropped. */
  undecodable: UndecodableUpdate[];
}

/** The decoded 200 answer of operation `Op`. */
export type OperationResult<Op extends OperationName> = Op extends 'getUpdates'
  ? UpdatesResult
  : z.infer<(typeof OPERATIONS)[Op]['result']>;
