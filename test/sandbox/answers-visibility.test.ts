/**
 * Issue 18, item 1: a notification-only callback answer is accepted but not shown to the person (the
 * platform's clients do not display it); with `showNotificationOnlyAnswers` it is shown, marked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FeedEvent } from '../../src/sandbox/index.ts';
import { eventually } from '../support/eventually.ts';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog } from './helpers.ts';

let h: SandboxClient;
afterEach(() => h.close());

async function pressAndAnswer(h: SandboxClient) {
  const { user } = await personInDialog(h.sandbox);
  const events: FeedEvent[] = [];
  const stream = await h.sandbox.control.events((e) => events.push(e), { user_id: user.user_id });
  const keyboard = {
    type: 'inline_keyboard' as const,
    payload: { buttons: [[{ type: 'callback' as const, text: 'Go', payload: 'go' }]] },
  };
  const sent = await h.api.sendMessage({ user_id: user.user_id, text: 'menu', attachments: [keyboard] });
  const press = await h.sandbox.control.pressButton(user.user_id, sent.message.body.mid, 'go');
  const result = await h.api.answerCallback({ callback_id: press.callback_id!, notification: 'Saved' });
  await h.api.sendMessage({ user_id: user.user_id, text: 'after' });
  await eventually('two messages seen', () => events.filter((e) => e.type === 'message.created').length >= 2);
  stream.close();
  return { user, events, result, view: await h.sandbox.control.view(user.user_id) };
}

describe('notification-only callback answers', () => {
  it('are accepted but not shown by default', async () => {
    h = await sandboxClient();
    const { user, events, result, view } = await pressAndAnswer(h);
    expect(result).toEqual({ success: true });
    expect(events.some((e) => e.type === 'notification')).toBe(false);
    expect(view.notifications).toEqual([]);
    const recorded = await h.sandbox.control.notifications(user.user_id);
    expect(recorded.notifications).toMatchObject([{ text: 'Saved', shown: false }]);
  });

  it('are shown, marked as hidden on the platform, when the sandbox is told to', async () => {
    h = await sandboxClient({ showNotificationOnlyAnswers: true });
    const { events, view } = await pressAndAnswer(h);
    const note = events.find((e) => e.type === 'notification');
    expect(note).toMatchObject({
      platformHides: true,
      text: expect.stringContaining('not shown on the platform'),
    });
    expect(view.notifications).toHaveLength(1);
  });
});
