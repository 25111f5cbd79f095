/**
 * Transcripts from playground chats: the person's actions since their last Start (or jump) are read from
 * the conversation's history, fired reminders become waits, task results become stubs, and replaying them
 * on the harness writes what the bot does as the expectations; the result parses and passes.
 */
import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../src/engine/inspect.ts';
import { loadFlows } from '../../src/flows/load.ts';
import { chatLogFrom, transcriptFromChat } from '../../src/testing/from-chat.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';

let id = 0;
const at = (minutes: number) => Date.UTC(2026, 10, 25, 9, minutes);
const entry = (kind: string, payload: unknown, minute: number, status = 'done'): HistoryEntry => ({
  inboxId: ++id,
  kind,
  updateType: kind === 'update' ? String((payload as { update_type: string }).update_type) : null,
  status,
  error: null,
  receivedAt: at(minute),
  processedAt: at(minute),
  payload,
});
const user = { user_id: 7, first_name: 'Ann' };
const text = (t: string, minute: number) =>
  entry(
    'update',
    { update_type: 'message_created', message: { sender: user, body: { text: t } }, user_locale: 'en' },
    minute,
  );
const started = (minute: number) =>
  entry('update', { update_type: 'bot_started', user, user_locale: 'en' }, minute);

describe('a transcript from a chat', () => {
  it('reads actions since the last Start, fired timers as waits, task results as stubs, presses by label', () => {
    const keyboard = {
      body: {
        attachments: [
          { type: 'inline_keyboard', payload: { buttons: [[{ text: 'Book', payload: 'p.book' }]] } },
        ],
      },
    };
    const history = [
      text('before the last start: left out', 0),
      started(1),
      text('Ann', 2),
      entry('timer', { name: 'ask_age:remind:0', dueAt: at(2) + 3_600_000 }, 70),
      entry('timer', { name: 'ask_age:idle', dueAt: at(2) + 86_400_000 }, 80),
      entry('task_result', { task: 'find_slots', ok: true, result: [{ time: '18:00' }] }, 81),
      entry('task_result', { task: 'save_booking', ok: false, error: { code: 'slot_taken' } }, 82),
      entry(
        'update',
        { update_type: 'message_callback', callback: { payload: 'p.book', user }, message: keyboard },
        83,
      ),
      entry(
        'update',
        { update_type: 'message_created', message: { sender: user, body: { text: 'x' } } },
        84,
        'failed',
      ),
    ];
    const log = chatLogFrom(history, { flow: 'signup', name: 'Ann', locale: 'en' });
    expect(log.actions).toEqual([
      { kind: 'start' },
      { kind: 'say', text: 'Ann' },
      { kind: 'wait', ms: 3_600_000, text: '1h' },
      { kind: 'wait', ms: 82_800_000, text: '23h' },
      { kind: 'press', button: 'Book', on: 'latest' },
    ]);
    expect(log.tasks).toEqual({
      find_slots: [{ result: [{ time: '18:00' }] }],
      save_booking: [{ error: { code: 'slot_taken' } }],
    });
    const jumped = chatLogFrom(
      [...history, entry('jump', { step: 'confirm', vars: { name: 'Kim' } }, 90), text('hi', 91)],
      { flow: 'signup', name: 'Kim' },
    );
    expect(jumped.startAt).toEqual({ step: 'confirm', context: { name: 'Kim' } });
    expect(jumped.actions).toEqual([{ kind: 'say', text: 'hi' }]);
  });

  it('writes what the bot does now, reminders included; the file parses and passes', async () => {
    const { flows } = await loadFlows('flows');
    const log = chatLogFrom([started(1), text('Ann', 2), entry('timer', { dueAt: at(2) + 3_600_000 }, 70)], {
      flow: 'signup',
      name: 'Ann',
      locale: 'en',
    });
    const yaml = await transcriptFromChat(log, flows, 'Ann waits');
    expect(yaml).toMatch(/- wait: 1h\n {4}bot:\n {6}- send: \S/); // the reminder, said
    const { transcripts, problems } = parseTranscripts(yaml, 'saved.test.yaml');
    expect(problems).toEqual([]);
    const [result] = await Promise.all(transcripts.map((t) => runTranscript(t, { flows })));
    expect(result?.failure?.report).toBeUndefined();
    expect(result?.passed).toBe(true);
  });
});
