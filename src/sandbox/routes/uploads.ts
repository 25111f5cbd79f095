/**
 * The upload flow: POST /uploads gives a one-file URL on the sandbox's own upload host, the host takes
 * multipart field `data` and answers per kind; the attachment is then "processing" for a while.
 * Also GET /videos/{videoToken} (Bot API) and GET /_files/{id} (the files' URLs).
 */
import type { FastifyInstance } from 'fastify';
import { UPLOAD_TYPES } from '../../client/schemas/index.ts';
import { fileUrl } from '../attachments.ts';
import { badRequest, invalidToken, notFound, PlatformError } from '../errors.ts';
import type { FileStore } from '../files.ts';
import { argsOf, strArg } from '../http.ts';
import { opaqueToken } from '../ids.ts';
import { serveUploadedFile } from '../local-routes.ts';
import type { Platform } from '../platform.ts';
import type { MediaKind } from '../state.ts';

/** Bot API side: POST /uploads and GET /videos/{videoToken}. */
export function registerUploadRoutes(app: FastifyInstance, p: Platform): void {
  app.post('/uploads', { config: { op: 'getUploadUrl' } }, async (req) => {
    const type = strArg(argsOf(req), 'type', true);
    if (!(UPLOAD_TYPES as readonly string[]).includes(type)) {
      throw badRequest(`Parameter "type" must be one of ${UPLOAD_TYPES.join(', ')}`);
    }
    const kind = type as MediaKind;
    const slot_id = `${++p.data.counters.upload}-${opaqueToken(9)}`;
    const token = kind === 'video' || kind === 'audio' ? opaqueToken(24) : undefined;
    p.data.uploads[slot_id] = { slot_id, kind, token, used: false };
    if (token) p.data.media[token] = { token, kind, file_id: '' };
    return { url: `${p.origin}/_upload/${slot_id}`, ...(token ? { token } : {}) };
  });

  app.get('/videos/:video_token', { config: { op: 'getVideoAttachmentDetails' } }, async (req) => {
    const token = String((req.params as { video_token: string }).video_token);
    const m = p.data.media[token];
    if (m?.kind !== 'video' || m.ready_at === undefined) throw notFound(`Video ${token} not found`);
    const url = fileUrl(p, m.file_id);
    return {
      token,
      urls: { mp4_720: url, mp4_480: url },
      thumbnail: { url: `${url}?thumbnail` },
      width: 640,
      height: 360,
      duration: 10,
    };
  });
}

/** The upload host takes multipart bodies whole (up to 300 MB); register once on its context. */
export function registerUploadParser(app: FastifyInstance): void {
  app.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer', bodyLimit: 300 * 1024 * 1024 },
    (_req, body, done) => done(null, body),
  );
}

/** The upload host and file URLs of one bot (no Bot API auth; images need the bot's Authorization header). */
export function registerUploadHost(app: FastifyInstance, p: Platform, files: FileStore, token: string): void {
  app.post('/_upload/:slot_id', async (req, reply) => {
    const slot = p.data.uploads[(req.params as { slot_id: string }).slot_id];
    if (!slot) throw notFound('Unknown upload URL: get one from POST /uploads');
    if (slot.kind === 'image' && req.headers.authorization !== token) throw invalidToken();
    if (slot.used)
      throw new PlatformError(
        400,
        'upload.used',
        'This upload URL already received a file: call POST /uploads again for another file',
      );
    const contentType = String(req.headers['content-type'] ?? '');
    if (!contentType.startsWith('multipart/form-data') || !Buffer.isBuffer(req.body)) {
      throw badRequest('Send the file as multipart/form-data with the field "data"');
    }
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(req.body), {
        headers: { 'content-type': contentType },
      }).formData();
    } catch {
      throw badRequest('Malformed multipart body');
    }
    const data = form.get('data');
    if (!data || typeof data === 'string')
      throw badRequest('The multipart form needs a file in the field "data"');
    const bytes = Buffer.from(await data.arrayBuffer());
    const filename = (data as File).name || undefined;
    const file_id = files.put({ bytes, contentType: data.type || 'application/octet-stream', filename });
    slot.used = true;
    const readyAt = p.now() + p.settings.attachmentProcessingMs[slot.kind];
    const mediaToken = slot.token ?? opaqueToken(24);
    p.data.media[mediaToken] = {
      token: mediaToken,
      kind: slot.kind,
      ready_at: readyAt,
      file_id,
      filename,
      size: bytes.length,
      content_type: data.type,
      photo_id: slot.kind === 'image' ? p.data.counters.upload : undefined,
    };
    switch (slot.kind) {
      case 'image':
        return { photos: { [opaqueToken(8)]: { token: mediaToken } } };
      case 'file':
        return { token: mediaToken };
      case 'video':
        reply.type('text/xml');
        return '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<retval>1</retval>';
      default:
        reply.code(200);
        return '';
    }
  });

  app.get('/_files/:file_id', async (req, reply) => {
    const file = files.get((req.params as { file_id: string }).file_id);
    if (!file) throw notFound('File not found (file contents are kept in memory only)');
    serveUploadedFile(reply, file.contentType, file.filename);
    return file.bytes;
  });
}
