/**
 * What people see change, as a stream of small events for `/_sandbox/events` (the web chat page and
 * tests follow it): messages created, edited or removed in a chat, notifications shown to a person,
 * and chat changes.
 */

/** One change a person could see. Documented in docs/sandbox.md (the event stream). */
export type FeedEvent =
  | { type: 'message.created'; chat_id: number; message: Record<string, unknown> }
  | { type: 'message.edited'; chat_id: number; message: Record<string, unknown> }
  | { type: 'message.removed'; chat_id: number; message_id: string }
  | {
      type: 'notification';
      chat_id: number;
      user_id: number;
      text: string;
      message_id?: string;
      /** A notification-only answer shown only because the sandbox was told to; the platform hides it. */
      platformHides?: boolean;
    }
  | { type: 'chat.changed'; chat_id: number; chat: Record<string, unknown> }
  | { type: 'comments.changed'; chat_id: number; post_id: string }
  | { type: 'chat.action'; chat_id: number; action: string };

/** Fan-out of feed events with a short replay buffer (so a reconnecting page misses nothing). */
export class PeopleFeed {
  private listeners = new Set<(e: FeedEvent & { id: number }) => void>();
  private recent: (FeedEvent & { id: number })[] = [];
  private nextId = 1;

  emit(event: FeedEvent): void {
    const e = { ...event, id: this.nextId++ };
    this.recent.push(e);
    if (this.recent.length > 1000) this.recent.splice(0, 200);
    for (const l of this.listeners) l(e);
  }

  private closers = new Set<() => void>();

  /** Registers a function run when the sandbox closes (open streams end). */
  onClose(fn: () => void): () => void {
    this.closers.add(fn);
    return () => this.closers.delete(fn);
  }

  /** Ends every open stream. */
  close(): void {
    for (const fn of this.closers) fn();
    this.closers.clear();
    this.listeners.clear();
  }

  /** Calls `listener` for events after `lastId` (replayed) and every later one; returns the unsubscribe. */
  subscribe(
    listener: (e: FeedEvent & { id: number }) => void,
    lastId = Number.POSITIVE_INFINITY,
  ): () => void {
    for (const e of this.recent) if (e.id > lastId) listener(e);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
