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

/** Creates the process logger. Child loggers (`logger.child({component})`) share its guards. */
export function createLogger(options: LoggerOptions): Logger {
  const secrets = (options.secrets ?? []).filter((s): s is string => typeof s === 'string' && s.length >= 4);
  // JSON escaping could alter a secret's spelling in the line; scrub the escaped form too.
  const needles = [...new Set(secrets.flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]))];
  return pino(
    {
      level: options.level,
      base: { pid: process.pid, ...options.base },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      hooks: needles.length
        ? {
            streamWrite: (line) =>
              needles.reduce((text, needle) => text.replaceAll(needle, '[redacted]'), line),
          }
        : {},
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
