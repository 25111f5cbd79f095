/** A message is sent at most once per person: ambiguous failures are resolved by reading the chat back. */
import { describe, expect, it } from 'vitest';
import { DeadLetterError, type Job } from '../../src/client/scheduler/types.ts';
import { ClaimedMessages, plainText, sendOnce } from '../../src/dispatch/sent-once.ts';

/** A platform as the scheduler sees it: sends may be stored and still fail; the chat can be read back. */
class Platform {
  stored: Array<{ sender: { is_bot: boolean }; timestamp: number; body: { text: string; mid: string } }> = [];
  sends = 0;
  reads = 0;
  constructor(private readonly failures: Array<'stored' | 'lost' | 'ok'>) {}
  async submit(job: Job): Promise<unknown> {
    if (job.op === 'getMessages') {
      this.reads++;
      return { messages: [...this.stored].reverse() };
    }
    this.sends++;
    const outcome = this.failures.shift() ?? 'ok';
    const message = {
      sender: { is_bot: true },
      timestamp: 10_000,
      body: { text: String((job.args as { text?: string }).text), mid: `m${this.sends}` },
    };
    if (outcome !== 'lost') this.stored.push(message);
    if (outcome === 'ok') return { message };
    // The answer never came: the scheduler dead-letters an at-most-once job as ambiguous.
    throw new DeadLetterError(
      'ambiguous',
      'sendMessage',
      7,
      new Error('socket hang up'),
      'sent without an answer',
    );
  }
}

const job = { op: 'sendMessage', args: { chat_id: 7, text: 'Hello' } } as Job;

describe('sendOnce', () => {
  it('does not send again when the platform stored the message but its answer was lost', async () => {
    const platform = new Platform(['stored']);
    const result = (await sendOnce(platform, job, 7, 9_000)) as { message: { body: { mid: string } } };
    expect(platform.sends).toBe(1);
    expect(platform.stored).toHaveLength(1);
    expect(result.message.body.mid).toBe('m1');
  });

  it('sends again when the message is not in the chat', async () => {
    const platform = new Platform(['lost', 'ok']);
    await sendOnce(platform, job, 7, 9_000);
    expect(platform.sends).toBe(2);
    expect(platform.stored.map((m) => m.body.text)).toEqual(['Hello']);
  });

  it('ignores the same text sent before this call went out', async () => {
    const platform = new Platform(['lost', 'ok']);
    platform.stored.push({ sender: { is_bot: true }, timestamp: 1_000, body: { text: 'Hello', mid: 'old' } });
    await sendOnce(platform, job, 7, 9_000);
    expect(platform.sends).toBe(2);
  });

  it('reads the chat first for a call that was in flight when the last process stopped', async () => {
    const platform = new Platform([]);
    platform.stored.push({
      sender: { is_bot: true },
      timestamp: 9_500,
      body: { text: 'Hello', mid: 'earlier' },
    });
    const result = (await sendOnce(platform, job, 7, 9_000, true)) as { message: { body: { mid: string } } };
    expect(platform.sends).toBe(0);
    expect(result.message.body.mid).toBe('earlier');
  });

  it('does not take the same text another call just sent for its own (a repeated prompt)', async () => {
    // Two calls send "Hello" within the clock slack; the second is stored but its answer is lost.
    const platform = new Platform(['ok', 'lost', 'ok']);
    const claimed = new ClaimedMessages();
    const first = (await sendOnce(platform, job, 7, 9_000, false, claimed)) as {
      message: { body: { mid: string } };
    };
    expect(first.message.body.mid).toBe('m1');
    await sendOnce(platform, job, 7, 9_000, false, claimed);
    // Without the claim, m1 would have been taken as the second message and the person would see one.
    expect(platform.stored.map((m) => m.body.mid)).toEqual(['m1', 'm3']);
  });

  it('takes the earliest unclaimed match when several are there', async () => {
    const platform = new Platform([]);
    for (const mid of ['a', 'b'])
      platform.stored.push({ sender: { is_bot: true }, timestamp: 9_500, body: { text: 'Hello', mid } });
    const claimed = new ClaimedMessages();
    const one = (await sendOnce(platform, job, 7, 9_000, true, claimed)) as {
      message: { body: { mid: string } };
    };
    const two = (await sendOnce(platform, job, 7, 9_000, true, claimed)) as {
      message: { body: { mid: string } };
    };
    expect([one.message.body.mid, two.message.body.mid]).toEqual(['a', 'b']);
    expect(platform.sends).toBe(0);
  });

  it('recognises a formatted message by the plain text the platform stores', async () => {
    const platform = new Platform(['stored']);
    const formatting = {
      submit: (j: Job) => {
        const args = j.args as { text?: string; format?: string };
        // As the platform does: the text is stored without its markers.
        return platform.submit(
          j.op === 'sendMessage' ? ({ ...j, args: { ...args, text: 'Welcome, Ann & co!' } } as Job) : j,
        );
      },
    };
    const html = {
      op: 'sendMessage',
      args: { chat_id: 7, text: '<b>Welcome</b>, Ann &amp; co!', format: 'html' },
    } as Job;
    const answer = (await sendOnce(formatting, html, 7, 10_000)) as { message: { body: { mid: string } } };
    expect(answer.message.body.mid).toBe('m1');
    expect(platform.sends).toBe(1);
  });

  it('reads formatted texts as the platform stores them', () => {
    expect(plainText('<b>Hi</b> <a href="https://x.org">you</a>&lt;3<br>bye', 'html')).toBe('Hi you<3\nbye');
    expect(plainText('**Hi** _you_ [docs](https://x.org) ~~no~~\n# Title', 'markdown')).toBe(
      'Hi you docs no\nTitle',
    );
    expect(plainText('<b>kept</b>', undefined)).toBe('<b>kept</b>');
  });
});
