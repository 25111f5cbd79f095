/**
 * The request bodies the platform accepts, written from the specification (`bot-api.md`, the OpenAPI
 * description 0.0.32 and its notes), strictly: unknown fields, unknown button or attachment types,
 * missing required fields, empty keyboards and non-boolean booleans are refused. Deliberately NOT
 * imported from `src/api`: the client's schemas are tolerant, and a mistake both made would be
 * invisible if the sandbox checked with them.
 */
import { z } from 'zod';
import { badRequest } from './errors.ts';

const text = z.string().min(1).max(128);
const button = <T extends z.core.$ZodLooseShape>(type: string, shape: T) =>
  z.strictObject({ type: z.literal(type), text, ...shape });

/**
 * Every button kind the platform's schema knows, each with its required fields. No `chat` button: the
 * OpenAPI description's prose still mentions one, but its `Button` schema (the discriminator the platform
 * validates with) has no such kind, so a bot that relies on it would fail there.
 */
export const SpecButton = z.discriminatedUnion('type', [
  button('callback', { payload: z.string().max(1024) }),
  button('link', { url: z.string().min(1).max(2048) }),
  button('request_contact', {}),
  button('request_geo_location', { quick: z.boolean().optional() }),
  button('open_app', {
    web_app: z.string().optional(),
    contact_id: z.number().int().optional(),
    payload: z.string().optional(),
  }),
  button('message', {}),
  button('clipboard', { payload: z.string().max(1024) }),
]);

/** An inline keyboard: at least one row, and no row empty. */
export const SpecKeyboard = z.strictObject({
  buttons: z
    .array(z.array(SpecButton).min(1, 'a row needs at least one button'))
    .min(1, 'a keyboard needs at least one row'),
});

const attachment = <T extends z.core.$ZodLooseShape>(type: string, shape: T) =>
  z.strictObject({ type: z.literal(type), ...shape });
const tokenPayload = z.strictObject({ token: z.string().min(1) });

export const SpecAttachmentRequest = z.discriminatedUnion('type', [
  attachment('image', {
    payload: z.strictObject({
      url: z.string().min(1).optional(),
      token: z.string().min(1).optional(),
      photos: z.record(z.string(), z.strictObject({ token: z.string() })).optional(),
    }),
  }),
  attachment('video', { payload: tokenPayload }),
  attachment('audio', { payload: tokenPayload }),
  attachment('file', { payload: tokenPayload }),
  attachment('sticker', { payload: z.strictObject({ code: z.string().min(1) }) }),
  attachment('contact', {
    payload: z.strictObject({
      name: z.string().optional(),
      contact_id: z.number().int().optional(),
      vcf_info: z.string().optional(),
      vcf_phone: z.string().optional(),
    }),
  }),
  attachment('location', { latitude: z.number(), longitude: z.number() }),
  attachment('share', {
    payload: z.strictObject({ url: z.string().optional(), token: z.string().optional() }),
  }),
  attachment('inline_keyboard', { payload: SpecKeyboard }),
]);

/** NewMessageBody of POST /messages, PUT /messages and the `message` of POST /answers. */
export const SpecNewMessageBody = z.strictObject({
  text: z.string().optional(),
  attachments: z.array(SpecAttachmentRequest).optional(),
  link: z.strictObject({ type: z.enum(['forward', 'reply']), mid: z.string().min(1) }).optional(),
  notify: z.boolean().optional(),
  format: z.enum(['markdown', 'html']).optional(),
  disable_link_preview: z.boolean().optional(),
});
export type SpecNewMessageBody = z.infer<typeof SpecNewMessageBody>;

/** The body of POST /answers (`callback_id` is a query parameter). */
export const SpecCallbackAnswer = z.strictObject({
  message: SpecNewMessageBody.optional(),
  notification: z.string().optional(),
});

/** Query parameters of each operation that a client must not put into the JSON body. */
export const QUERY_ONLY: Readonly<Record<string, readonly string[]>> = {
  sendMessage: ['chat_id', 'user_id'],
  editMessage: ['message_id'],
  deleteMessage: ['message_id'],
  answerCallback: ['callback_id'],
  getUploadUrl: ['type'],
  unsubscribe: ['url'],
  removeMember: ['user_id', 'block'],
};

/** Absent and `null` mean the same on the platform: nulls are dropped before checking. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, withoutNulls(v)]),
    );
  }
  return value;
}

function pathText(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path)
    at = at && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  return at;
}

/** Checks `raw` with a spec schema; a mismatch is the platform's 400 `proto.payload` naming the field. */
export function checkSpec<S extends z.ZodType>(schema: S, raw: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(withoutNulls(raw));
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const at = pathText(issue.path);
  const where = at ? `${what}.${at}` : what;
  if (issue.code === 'unrecognized_keys') {
    throw badRequest(`${where}: unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}`);
  }
  if (issue.code === 'invalid_union') {
    const endsAtType = issue.path.at(-1) === 'type';
    const given = valueAt(raw, issue.path);
    const type = endsAtType ? given : (given as { type?: unknown } | undefined)?.type;
    throw badRequest(`${endsAtType ? where : `${where}.type`}: unknown type ${JSON.stringify(type)}`);
  }
  throw badRequest(`${where}: ${issue.message}`);
}
