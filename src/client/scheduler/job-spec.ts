/**
 * Turns what a caller submits into what the scheduler needs to know: the chat it counts against,
 * its class, whether it may be repeated after an ambiguous failure, and the media it carries.
 * Bad input is refused here with a message that says what to change.
 */
import { isOperation, OPERATIONS } from '../operations.ts';
import type { Entry } from './chat-queues.ts';
import { defaultPriority } from './priorities.ts';
import type { Job, MediaKind, Priority } from './types.ts';

/** A job as the scheduler files it. */
export interface JobSpec {
  op: string;
  args: Record<string, unknown>;
  chatId: number | undefined;
  /**
   * Whether it counts against its chat's per-chat limit (sends, edits, deletes, callback answers).
   * Read-backs (`getMessages` by `chat_id`) and chat actions ("typing…") wait in their chat's lane,
   * in order with it, but the platform does not count them per chat.
   */
  countsPerChat: boolean;
  /** The person a chat-scoped call targets by `user_id` (no `chat_id`): their dialog is the chat it counts against. */
  userTarget: number | undefined;
  priority: Priority;
  ttlMs: number | undefined;
  /** Safe (or allowed) to repeat after a failure that may have reached the platform. */
  mayRepeat: boolean;
  mediaKind: MediaKind | undefined;
  signal: AbortSignal | undefined;
  task: Entry['task'];
  onStart?: Job['onStart'];
}

/** Checks and completes a submitted job; throws TypeError on bad input. */
export function jobSpecOf(job: Job): JobSpec {
  if (!isOperation(job.op)) {
    throw new TypeError(
      `Scheduler.submit: unknown operation "${String(job.op)}"; use a name from OPERATIONS such as "sendMessage"`,
    );
  }
  const spec = OPERATIONS[job.op];
  const args = (job.args ?? {}) as Record<string, unknown>;
  let chatId: number | undefined;
  const chatScoped = 'chatScoped' in spec && spec.chatScoped === true;
  const inChatLane = 'chatLane' in spec && spec.chatLane === true;
  if (chatScoped || inChatLane) {
    const raw = chatScoped ? (job.chatId ?? args.chat_id ?? args.user_id) : (job.chatId ?? args.chat_id);
    if (raw !== undefined && (typeof raw !== 'number' || !Number.isFinite(raw))) {
      throw new TypeError(
        `Scheduler.submit(${job.op}): the chat id must be a number, got ${JSON.stringify(raw)}`,
      );
    }
    chatId = raw;
  }
  const userTarget =
    args.chat_id === undefined &&
    typeof args.user_id === 'number' &&
    (job.chatId ?? args.user_id) === args.user_id
      ? args.user_id
      : undefined;
  return {
    op: job.op,
    args,
    chatId,
    // Matters only in a chat lane; everything that reaches one counts there except the chat-lane ops.
    countsPerChat: !inChatLane,
    userTarget,
    priority: job.priority ?? defaultPriority(job.op),
    // A typing action is worth something for a few seconds only: not retried through an outage.
    ttlMs: job.ttlMs ?? (job.op === 'sendAction' ? SENDER_ACTION_TTL_MS : undefined),
    mayRepeat: spec.idempotent || (job.sendPolicy ?? 'at-least-once') === 'at-least-once',
    mediaKind: job.mediaKind ?? mediaKindOf(args),
    signal: job.signal,
    task: null,
    ...(job.onStart ? { onStart: job.onStart } : {}),
  };
}

/** How long a sender action (typing…) is worth sending, retries included. */
export const SENDER_ACTION_TTL_MS = 10_000;

/** The heaviest media kind among a message's attachments (video takes the longest to process). */
export function mediaKindOf(args: Record<string, unknown>): MediaKind | undefined {
  const attachments =
    args.attachments ?? (args.message as { attachments?: unknown } | undefined)?.attachments;
  if (!Array.isArray(attachments)) return undefined;
  const kinds = new Set(attachments.map((a: { type?: unknown }) => a?.type));
  for (const kind of ['video', 'audio', 'file', 'image'] as const) if (kinds.has(kind)) return kind;
  return undefined;
}
