/**
 * A client-shaped view of a Scheduler, for code written against BotApi (long polling, subscription
 * checks): every call waits its turn under the platform's limits, so the long poll counts in the same
 * 30-per-second window as the sends. A dead-lettered call rejects with the error that killed it, so
 * callers see the ApiError or NetworkError they would have seen from the client itself.
 */
import type { OperationArgs, OperationResult } from '../client.ts';
import type { OperationName } from '../operations.ts';
import type { Scheduler } from './scheduler.ts';
import { DeadLetterError } from './types.ts';

interface CallOptions {
  signal?: AbortSignal;
}

/** The calls of `BotApi` that intake needs, sent through `scheduler`. */
export function throttledClient(scheduler: Pick<Scheduler, 'submit'>) {
  async function call<Op extends OperationName>(
    op: Op,
    args: OperationArgs<Op>,
    options: CallOptions = {},
  ): Promise<OperationResult<Op>> {
    try {
      return await scheduler.submit({ op, args, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      if (error instanceof DeadLetterError && error.lastError instanceof Error) throw error.lastError;
      throw error;
    }
  }
  return {
    call,
    getUpdates: (args: OperationArgs<'getUpdates'> = {}, options?: CallOptions) =>
      call('getUpdates', args, options),
    getSubscriptions: (options?: CallOptions) => call('getSubscriptions', {}, options),
    subscribe: (args: OperationArgs<'subscribe'>, options?: CallOptions) => call('subscribe', args, options),
    unsubscribe: (args: OperationArgs<'unsubscribe'>, options?: CallOptions) =>
      call('unsubscribe', args, options),
  };
}
