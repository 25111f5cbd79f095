/**
 * The platform's error answers: every non-200 status carries `{code, message}`.
 */

/**
 * An error the sandbox answers with, exactly as the platform would. Not a catalogue error: it becomes an HTTP
 * answer, which callers meet as the client's ApiError (BOTFLOW_API_ERROR).
 */
export class PlatformError extends Error {
  override name = 'PlatformError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra response headers (e.g. Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** 400 `proto.payload`: the request is malformed; `message` says which field and what is expected. */
export const badRequest = (message: string) => new PlatformError(400, 'proto.payload', message);
/** 404 `not.found`. */
export const notFound = (message: string) => new PlatformError(404, 'not.found', message);
/** 403 `chat.denied`: the bot may not act in this chat at all (not a member, blocked). */
export const chatDenied = (message: string) => new PlatformError(403, 'chat.denied', message);
/** 403 `access.denied`: the bot is in the chat but lacks the right for this action. */
export const accessDenied = (message: string) => new PlatformError(403, 'access.denied', message);
/** 401 `verify.token`, the platform's exact answer to a bad token. */
export const invalidToken = () => new PlatformError(401, 'verify.token', 'Invalid access_token');
/** 400 `attachment.not.ready`: the upload is still being processed; the same request succeeds later. */
export const attachmentNotReady = () =>
  new PlatformError(
    400,
    'attachment.not.ready',
    'The attachment is still being processed after its upload: repeat the same request a little later',
  );
/** 405 for a method the platform does not allow on this path (or not now). */
export const methodNotAllowed = (message: string) => new PlatformError(405, 'method.not.allowed', message);
