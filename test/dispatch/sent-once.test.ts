/** A message is sent at most once per person: ambiguous failures are resolved by reading the chat back. */
import { describe, expect, it } from 'vitest';
import { DeadLetterError, type Job } from '../../src/dispatch/scheduler/types.ts';
import { ClaimedMessages, sendOnce } from '../../src/dispatch/sent-once.ts';

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
});
