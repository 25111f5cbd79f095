/**
 * Turns the attachment requests of a NewMessageBody into the attachments a message carries, checking
 * what the platform checks: known tokens of the right kind, processing finished (`attachment.not.ready`
 * otherwise), keyboard limits, at most one inline keyboard.
 */
import {
  type Attachment,
  type AttachmentRequest,
  KEYBOARD_LIMITS,
  WIDE_BUTTON_TYPES,
} from '../client/schemas/index.ts';
import { attachmentNotReady, badRequest } from './errors.ts';
import { opaqueToken } from './ids.ts';
import type { Platform } from './platform.ts';
import type { MediaKind, MediaRecord } from './state.ts';

/** URL under which the sandbox serves an uploaded or person-sent file. */
export function fileUrl(platform: Platform, fileId: string): string {
  return `${platform.origin}/_files/${fileId}`;
}

function media(platform: Platform, token: string, kind: MediaKind, where: string): MediaRecord {
  const m = platform.data.media[token];
  if (!m) throw badRequest(`${where}: unknown ${kind} token; get one from POST /uploads and the upload URL`);
  if (m.kind !== kind) throw badRequest(`${where}: the token belongs to a ${m.kind} upload, not a ${kind}`);
  if (m.ready_at === undefined || platform.now() < m.ready_at) throw attachmentNotReady();
  return m;
}

/** The attachment a message carries for uploaded media `m`. */
export function mediaAttachment(platform: Platform, m: MediaRecord): Attachment {
  const url = m.source_url ?? fileUrl(platform, m.file_id);
  switch (m.kind) {
    case 'image':
      return { type: 'image', payload: { photo_id: m.photo_id, token: m.token, url } };
    case 'video':
      return { type: 'video', payload: { url, token: m.token }, width: 640, height: 360, duration: 10 };
    case 'audio':
      return { type: 'audio', payload: { url, token: m.token } };
    default:
      return {
        type: 'file',
        payload: { url, token: m.token },
        filename: m.filename ?? 'file',
        size: m.size ?? 0,
      };
  }
}

function checkKeyboard(buttons: unknown[][], where: string): void {
  const L = KEYBOARD_LIMITS;
  if (buttons.length > L.rows) throw badRequest(`${where}: at most ${L.rows} rows of buttons`);
  let total = 0;
  buttons.forEach((row, r) => {
    const wide = row.some((b) => WIDE_BUTTON_TYPES.has((b as { type: string }).type));
    const max = wide ? L.perRowWide : L.perRow;
    if (row.length > max) throw badRequest(`${where}.buttons[${r}]: at most ${max} buttons in this row`);
    total += row.length;
    row.forEach((raw, i) => {
      const b = raw as { type: string; text?: string; payload?: string; url?: string };
      const at = `${where}.buttons[${r}][${i}]`;
      const len = b.text?.length ?? 0;
      if (len < L.textMin || len > L.textMax)
        throw badRequest(`${at}.text: ${L.textMin}..${L.textMax} characters`);
      if (b.type === 'callback' && (b.payload?.length ?? 0) > L.callbackPayload) {
        throw badRequest(`${at}.payload: at most ${L.callbackPayload} characters`);
      }
      if (b.type === 'link' && (b.url?.length ?? 0) > L.linkUrl)
        throw badRequest(`${at}.url: at most ${L.linkUrl} characters`);
    });
  });
  if (total > L.buttons) throw badRequest(`${where}: at most ${L.buttons} buttons`);
}

/**
 * An image sent by URL becomes an image of the platform's own, as there: with a `photo_id` and a
 * `token` that can be sent again. The sandbox keeps the URL instead of downloading the picture.
 */
function imageFromUrl(platform: Platform, url: string): MediaRecord {
  platform.data.counters.upload += 1;
  const token = opaqueToken(24);
  const record: MediaRecord = {
    token,
    kind: 'image',
    ready_at: platform.now(),
    file_id: '',
    photo_id: platform.data.counters.upload,
    source_url: url,
  };
  platform.data.media[token] = record;
  return record;
}

/** Converts attachment requests to stored attachments; throws the platform's 400s. */
export function resolveAttachments(platform: Platform, requests: AttachmentRequest[]): Attachment[] {
  let keyboards = 0;
  return requests.map((req, i): Attachment => {
    const where = `attachments[${i}]`;
    switch (req.type) {
      case 'image': {
        const p = req.payload;
        const token = p.token ?? (p.photos ? Object.values(p.photos)[0]?.token : undefined);
        if (token) return mediaAttachment(platform, media(platform, token, 'image', where));
        if (p.url) return mediaAttachment(platform, imageFromUrl(platform, p.url));
        throw badRequest(`${where}.payload: an image needs a token, photos or a url`);
      }
      case 'video':
      case 'audio':
      case 'file':
        return mediaAttachment(platform, media(platform, req.payload.token, req.type, where));
      case 'sticker':
        return {
          type: 'sticker',
          payload: { code: req.payload.code, url: `${platform.origin}/_stickers/${req.payload.code}` },
          width: 128,
          height: 128,
        };
      case 'contact': {
        const p = req.payload;
        const vcf =
          p.vcf_info ??
          `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:${p.name ?? ''}\r\n${p.vcf_phone ? `TEL:${p.vcf_phone}\r\n` : ''}END:VCARD`;
        const known = p.contact_id !== undefined ? platform.data.users[String(p.contact_id)] : undefined;
        return {
          type: 'contact',
          payload: { vcf_info: vcf, max_info: known ? platform.userJson(known.user_id) : undefined },
        } as Attachment;
      }
      case 'location':
        return { type: 'location', latitude: req.latitude, longitude: req.longitude };
      case 'share':
        return { type: 'share', payload: { url: req.payload.url, token: req.payload.token } };
      case 'inline_keyboard':
        keyboards++;
        if (keyboards > 1) throw badRequest(`${where}: a message carries at most one inline keyboard`);
        checkKeyboard(req.payload.buttons as unknown[][], `${where}.payload`);
        return { type: 'inline_keyboard', payload: req.payload };
      default:
        throw badRequest(`${where}.type: unknown attachment type`);
    }
  });
}
