import { BotflowError } from '../errors/index.ts';

/**
 * A start that cannot go on, described for a person: what failed and what to do. The run command prints
 * `message` as is and exits with `exitCode`; no stack trace, because the fix is in the configuration or the
 * environment, not in the code.
 */
export class StartupError extends BotflowError {
  override name = 'StartupError';
  constructor(
    message: string,
    /** 2: configuration; 3: the self-check failed; 4: flows have problems; 1: anything else. */
    readonly exitCode = 1,
    options?: { cause?: unknown },
  ) {
    super('BOTFLOW_STARTUP_FAILED', message, options);
  }
}

/** Turns a listen failure (port in use, no permission) into advice naming the setting to change. */
export function describeListenError(error: unknown, what: string, setting: string): StartupError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new StartupError(
      `${what}: the address is already in use: stop the other process, or choose another port with ${setting}`,
      1,
      { cause: error },
    );
  }
  if (code === 'EACCES') {
    return new StartupError(
      `${what}: no permission to listen there (ports below 1024 need privileges): choose a port above 1024 with ${setting}`,
      1,
      { cause: error },
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new StartupError(`${what}: this machine has no such address: check the host in ${setting}`, 1, {
      cause: error,
    });
  }
  return undefined;
}
