import { z } from 'zod';
import { int, obj } from './common.ts';
import { Keyboard } from './keyboard.ts';
import { User } from './objects.ts';

// ---- Attachments as they arrive inside messages ----

const MediaPayload = obj({ url: z.string().optional(), token: z.string().optional() });

export const ImageAttachment = obj({
  type: z.literal('image'),
  payload: MediaPayload.extend({ photo_id: int.optional() }),
});
export const VideoAttachment = obj({
  type: z.literal('video'),
  payload: MediaPayload,
  thumbnail: obj({ url: z.string().optional() }).optional(),
  width: int.optional(),
  height: int.optional(),
  duration: int.optional(),
});
export const AudioAttachment = obj({ type: z.literal('audio'), payload: MediaPayload });
export const FileAttachment = obj({
  type: z.literal('file'),
  payload: MediaPayload,
  filename: z.string().optional(),
  size: int.optional(),
});
export const StickerAttachment = obj({
  type: z.literal('sticker'),
  payload: obj({ url: z.string().optional(), code: z.string().optional() }),
  width: int.optional(),
  height: int.optional(),
});
export const ContactAttachment = obj({
  type: z.literal('contact'),
  payload: obj({
    vcf_info: z.string().optional(),
    hash: z.string().optional(),
    max_info: User.optional(),
  }),
});
export const LocationAttachment = obj({
  type: z.literal('location'),
  latitude: z.number(),
  longitude: z.number(),
});
export const ShareAttachment = obj({
  type: z.literal('share'),
  payload: obj({ url: z.string().optional(), token: z.string().optional() }),
  title: z.string().optional(),
  description: z.string().optional(),
  image_url: z.string().optional(),
});
export const InlineKeyboardAttachment = obj({
  type: z.literal('inline_keyboard'),
  payload: Keyboard,
  callback_id: z.string().optional(),
});
/** An attachment kind this version does not know; kept as it came. */
export const UnknownAttachment = obj({ type: z.string() });

export const Attachment = z.union([
  z.discriminatedUnion('type', [
    ImageAttachment,
    VideoAttachment,
    AudioAttachment,
    FileAttachment,
    StickerAttachment,
    ContactAttachment,
    LocationAttachment,
    ShareAttachment,
    InlineKeyboardAttachment,
  ]),
  UnknownAttachment,
]);
export type Attachment = z.infer<typeof Attachment>;
export type ImageAttachment = z.infer<typeof ImageAttachment>;
export type ContactAttachment = z.infer<typeof ContactAttachment>;
export type LocationAttachment = z.infer<typeof LocationAttachment>;
export type FileAttachment = z.infer<typeof FileAttachment>;

// ---- Attachment requests, as sent in NewMessageBody ----

export const ImageAttachmentRequest = obj({
  type: z.literal('image'),
  payload: obj({
    url: z.string().optional(),
    token: z.string().optional(),
    photos: z.record(z.string(), obj({ token: z.string() })).optional(),
  }),
});
const TokenPayload = obj({ token: z.string() });
export const VideoAttachmentRequest = obj({ type: z.literal('video'), payload: TokenPayload });
export const AudioAttachmentRequest = obj({ type: z.literal('audio'), payload: TokenPayload });
export const FileAttachmentRequest = obj({ type: z.literal('file'), payload: TokenPayload });
export const StickerAttachmentRequest = obj({
  type: z.literal('sticker'),
  payload: obj({ code: z.string() }),
});
export const ContactAttachmentRequest = obj({
  type: z.literal('contact'),
  payload: obj({
    name: z.string().optional(),
    contact_id: int.optional(),
    vcf_info: z.string().optional(),
    vcf_phone: z.string().optional(),
  }),
});
export const LocationAttachmentRequest = obj({
  type: z.literal('location'),
  latitude: z.number(),
  longitude: z.number(),
});
export const ShareAttachmentRequest = obj({
  type: z.literal('share'),
  payload: obj({ url: z.string().optional(), token: z.string().optional() }),
});
export const InlineKeyboardAttachmentRequest = obj({ type: z.literal('inline_keyboard'), payload: Keyboard });

export const AttachmentRequest = z.discriminatedUnion('type', [
  ImageAttachmentRequest,
  VideoAttachmentRequest,
  AudioAttachmentRequest,
  FileAttachmentRequest,
  StickerAttachmentRequest,
  ContactAttachmentRequest,
  LocationAttachmentRequest,
  ShareAttachmentRequest,
  InlineKeyboardAttachmentRequest,
]);
export type AttachmentRequest = z.infer<typeof AttachmentRequest>;
export type InlineKeyboardAttachmentRequest = z.infer<typeof InlineKeyboardAttachmentRequest>;
export type MediaAttachmentRequest = z.infer<
  | typeof ImageAttachmentRequest
  | typeof VideoAttachmentRequest
  | typeof AudioAttachmentRequest
  | typeof FileAttachmentRequest
>;
