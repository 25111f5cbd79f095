/**
 * The process logger: pino writing one JSON line per event to stdout. Secrets cannot reach a line by any
 * route: known secret fields are redacted by path, `Secret` values serialise as `[redacted]`, and as a last
 * guard every finished line is scrubbed of the secret strings themselves (a token pasted into an error
 * message, a URL, a nested object).
 */
import { type DestinationStream, type Level, type Logger, pino } from 'pino';

/** Field paths that hold secrets wherever they appear in a log object. */
export const REDACTED_PATHS = [
  'token',
  '*.token',
  '*.*.token',
  'secret',
  '*.secret',
  '*.*.secret',
  'buttonSecret',
  '*.buttonSecret',
  'authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers["x-svc-bot-api-secret"]',
  'req.headers["x-max-bot-api-secret"]',
];

/** How to build the logger. */
export interface LoggerOptions {
  level: Level | 'silent';
  /** Secret values to scrub from every line (the token, the webhook secret). Empty strings are ignored. */
  secrets?: (string | undefined)[];
  /** Where lines go; stdout by default. */
  destination?: DestinationStream;
  /** Fields added to every line. */
  base?: Record<string, unknown>;
}

/** Credentials in a URL: `user:password@` and query parameters with secret-looking names. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/\s:@"']+(?::[^/\s@"']*)?@/gi;
const URL_SECRET_PARAM =
  /([?&](?:access_token|token|secret|password|passwd|api[_-]?key|key|signature|sig)=)[^&#\s"']+/gi;

/**
 * A text with the given secret values and any credentials in URLs replaced by `[redacted]`: for every line
 * botflow writes, logs and printed messages alike.
 */
export function scrub(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(URL_USERINFO, '$1[redacted]@').replace(URL_SECRET_PARAM, '$1[redacted]');
  for (const secret of secrets) if (secret.length >= 4) out = out.replaceAll(secret, '[redacted]');
  return out;
}

/** A logger whose line scrub can learn secrets known only later (the embedded sandbox's token). */
export type ScrubbingLogger = Logger & { addSecret(value: string | undefined): void };

/** Creates the process logger. Child loggers (`logger.child({component})`) share its guards. */
export function createLogger(options: LoggerOptions): ScrubbingLogger {
  const needles: string[] = [];
  const addSecret = (value: string | undefined) => {
    if (typeof value !== 'string' || value.length < 4) return;
    // JSON escaping could alter a secret's spelling in the line; scrub the escaped form too.
    for (const form of [value, JSON.stringify(value).slice(1, -1)])
      if (!needles.includes(form)) needles.push(form);
  };
  for (const secret of options.secrets ?? []) addSecret(secret);
  const logger = pino(
    {
      level: options.level,
      base: { pid: process.pid, ...options.base },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        streamWrite: (line) => scrub(line, needles),
      },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
  return Object.assign(logger, { addSecret });
}
