/**
 * The store's ports: what the engine, the dispatcher and the task runner need from a database, written
 * once. Each method may answer with a value or a promise (grammY's `StorageAdapter` does the same), so the
 * SQLite adapter stays synchronous and the PostgreSQL adapter is asynchronous; callers go through
 * `andThen()` below, which stays synchronous for a value.
 */
export type { Clock, TimerHandle } from './clock.ts';
export { clockFrom, systemClock } from './clock.ts';

/** A value now, or later. */
export type MaybePromise<T> = T | Promise<T>;

/** `T` at once (a synchronous store) or a promise of it. */
export type Answer<Sync extends boolean, T> = Sync extends true ? T : Promise<T>;

/** `fn(value)`, at once when `value` is not a promise, else when it resolves. */
export function andThen<T, R>(value: MaybePromise<T>, fn: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}
