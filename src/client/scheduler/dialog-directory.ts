/**
 * `user_id=X` and the dialog with X are one chat on the platform: one per-chat budget. The directory
 * remembers each person's dialog chat id, learned from the answer to a send by `user_id` (or told),
 * so that calls by either name share one lane.
 */
import type { JobSpec } from './job-spec.ts';

export class DialogDirectory {
  private readonly dialogs = new Map<number, number>();

  /** Records that `chatId` is the dialog with `userId` (dialogs have positive ids). */
  know(userId: number, chatId: number): void {
    if (chatId > 0 && userId !== chatId) this.dialogs.set(userId, chatId);
  }

  /** The chat a call to `userId` counts against: their dialog when known, else `fallback`. */
  chatOf(userId: number, fallback: number | undefined): number | undefined {
    return this.dialogs.get(userId) ?? fallback;
  }

  /** Enqueues `spec` in its person's dialog lane when it targets a `user_id`, and learns the dialog from a send. */
  submit(spec: JobSpec, enqueue: (spec: JobSpec) => Promise<unknown>): Promise<unknown> {
    const target = spec.userTarget;
    if (target !== undefined) spec.chatId = this.chatOf(target, spec.chatId);
    const done = enqueue(spec);
    if (target !== undefined && spec.op === 'sendMessage')
      done.then(
        (r) => this.learn(target, r),
        () => {},
      );
    return done;
  }

  /** Learns from the answer of a send by `user_id` (its `message.recipient.chat_id`). */
  learn(userId: number, result: unknown): void {
    const chatId = (result as { message?: { recipient?: { chat_id?: unknown } } })?.message?.recipient
      ?.chat_id;
    if (typeof chatId === 'number') this.know(userId, chatId);
  }
}
