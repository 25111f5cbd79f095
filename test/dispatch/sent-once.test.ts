/** A message is sent at most once per person: ambiguous failures are resolved by reading the chat back. */
import { describe, expect, it } from 'vitest';
import { DeadLetterError, type Job } from '../../src/client/scheduler/types.ts';
import { sendCall } from '../../src/dispatch/send.ts';
import {
  ClaimedMessages,
  expectedMessage,
  matchStored,
  plainText,
  sendCommentOnce,
  sendOnce,
} from '../../src/dispatch/sent-once.ts';
import type { OutboxRow } from '../../src/store/outbox.ts';

type Stored = {
  sender: { is_bot: boolean };
  timestamp: number;
  body: { text?: string; mid: string; attachments?: unknown[] };
};

/**
 * A platform as the scheduler sees it: sends may be stored and still fail; the chat can be read back.
 * Attachments are stored as the platform does: a media request's token becomes `{type, payload: {url,
 * token}}` (a file also gets its name and size), a URL image gets a URL and a token of the platform's.
 * A lost answer dead-letters an at-most-once job as ambiguous; an at-least-once job (the scheduler's
 * default for sends) is sent again, as the scheduler would, and may be stored twice.
 */
class Platform {
  stored: Stored[] = [];
  sends = 0;
  reads = 0;
  uploads = 0;
  constructor(private readonly failures: Array<'stored' | 'lost' | 'ok'>) {}
  async submit(job: Job): Promise<unknown> {
    if (job.op === 'getMessages') {
      this.reads++;
      return { messages: [...this.stored].reverse() };
    }
    for (;;) {
      this.sends++;
      const outcome = this.failures.shift() ?? 'ok';
      const args = job.args as { text?: string; attachments?: AttachmentRequest[] };
      const message: Stored = {
        sender: { is_bot: true },
        timestamp: 10_000,
        body: {
          ...(args.text ? { text: args.text } : {}),
          mid: `m${this.sends}`,
          ...(args.attachments ? { attachments: args.attachments.map(storedAttachment) } : {}),
        },
      };
      if (outcome !== 'lost') this.stored.push(message);
      if (outcome === 'ok') return { message };
      if (job.sendPolicy !== 'at-most-once') continue; // the scheduler's own retry
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
  /** An uploader (MediaUploader): a new token per upload. */
  upload = async (media: { type: string }) => {
    this.uploads++;
    return { type: media.type, payload: { token: `tok${this.uploads}` } };
  };
}

type AttachmentRequest = { type: string; payload: { url?: string; token?: string } };

function storedAttachment(a: AttachmentRequest): unknown {
  const url = 'https://cdn.example/f/1';
  if (a.type === 'image' && a.payload.url)
    return { type: 'image', payload: { photo_id: 1, token: 'own', url } };
  if (a.type === 'file')
    return { type: 'file', payload: { url, token: a.payload.token }, filename: 'report.pdf', size: 19 };
  if (['image', 'video', 'audio'].includes(a.type))
    return { type: a.type, payload: { url, token: a.payload.token } };
  return a;
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

const doc = {
  op: 'sendMessage',
  args: {
    chat_id: 7,
    text: 'Here is your document.',
    attachments: [{ type: 'file', payload: { token: 'tok1' } }],
  },
} as Job;
type Answer = { message: { body: { mid: string } } };

describe('sendOnce with attachments (issue 28)', () => {
  it('recognises a message with attachments only (no text) and does not send it again', async () => {
    const platform = new Platform(['stored']);
    const bare = {
      op: 'sendMessage',
      args: { chat_id: 7, attachments: [{ type: 'image', payload: { url: 'https://example.org/cat.png' } }] },
    } as Job;
    const answer = (await sendOnce(platform, bare, 7, 9_000)) as Answer;
    expect(answer.message.body.mid).toBe('m1');
    expect(platform.stored).toHaveLength(1);
    expect(platform.reads).toBe(1);
  });

  it('does not take a message with the same text but other attachments for this one', async () => {
    // The same words went out just before as text only; this document's send never reached the platform.
    const platform = new Platform(['lost', 'ok']);
    platform.stored.push({
      sender: { is_bot: true },
      timestamp: 9_500,
      body: { text: 'Here is your document.', mid: 'text' },
    });
    const answer = (await sendOnce(platform, doc, 7, 9_000)) as Answer;
    expect(answer.message.body.mid).toBe('m2');
    expect(platform.stored.map((m) => m.body.mid)).toEqual(['text', 'm2']);
  });

  it('takes, of two stored copies of the same kind, the one carrying the token it sent', async () => {
    const platform = new Platform([]);
    const url = 'https://cdn.example/f/1';
    for (const [mid, token] of [
      ['other', 'tok0'],
      ['mine', 'tok1'],
    ] as const)
      platform.stored.push({
        sender: { is_bot: true },
        timestamp: 9_500,
        body: {
          text: 'Here is your document.',
          mid,
          attachments: [{ type: 'file', payload: { url, token }, filename: 'report.pdf' }],
        },
      });
    const answer = (await sendOnce(platform, doc, 7, 9_000, true)) as Answer;
    expect(answer.message.body.mid).toBe('mine');
  });
});

describe('matchStored', () => {
  const stored = (body: Record<string, unknown>) => ({
    sender: { is_bot: true },
    timestamp: 1,
    body: { mid: 'm', ...body },
  });
  const url = 'https://cdn.example/x';

  it('compares text and the attachments as the platform keeps them', () => {
    const expected = expectedMessage({
      text: '<b>Your</b> photo',
      format: 'html',
      attachments: [
        { type: 'image', payload: { photos: { a: { token: 'p1' } } } },
        {
          type: 'inline_keyboard',
          payload: { buttons: [[{ type: 'callback', text: 'More', payload: 'x' }]] },
        },
      ],
    });
    const keyboard = {
      type: 'inline_keyboard',
      payload: { buttons: [[{ type: 'callback', text: 'More', payload: 'x' }]] },
    };
    const photo = (token: string) => ({ type: 'image', payload: { photo_id: 3, token, url } });
    expect(matchStored(stored({ text: 'Your photo', attachments: [keyboard, photo('p1')] }), expected)).toBe(
      2,
    );
    // Another token is still this photo (the platform may keep another), only a weaker match.
    expect(matchStored(stored({ text: 'Your photo', attachments: [photo('zz'), keyboard] }), expected)).toBe(
      1,
    );
    expect(matchStored(stored({ text: 'Your photo', attachments: [photo('p1')] }), expected)).toBe(0);
    expect(
      matchStored(
        stored({
          text: 'Your photo',
          attachments: [{ type: 'file', payload: { url, token: 'p1' } }, keyboard],
        }),
        expected,
      ),
    ).toBe(0);
    const renamed = {
      type: 'inline_keyboard',
      payload: { buttons: [[{ type: 'callback', text: 'Less', payload: 'x' }]] },
    };
    expect(matchStored(stored({ text: 'Your photo', attachments: [photo('p1'), renamed] }), expected)).toBe(
      0,
    );
    expect(matchStored(stored({ text: 'Your photos', attachments: [photo('p1'), keyboard] }), expected)).toBe(
      0,
    );
  });

  it('ignores a link preview the platform added, and takes no text and empty text as the same', () => {
    const withLink = expectedMessage({ text: 'See https://example.org' });
    const preview = { type: 'share', payload: { url: 'https://example.org' }, title: 'Example' };
    expect(matchStored(stored({ text: 'See https://example.org', attachments: [preview] }), withLink)).toBe(
      1,
    );
    const bare = expectedMessage({ attachments: [{ type: 'sticker', payload: { code: 'cat' } }] });
    expect(
      matchStored(
        stored({ text: null, attachments: [{ type: 'sticker', payload: { code: 'cat', url } }] }),
        bare,
      ),
    ).toBe(1);
    expect(
      matchStored(stored({ attachments: [{ type: 'sticker', payload: { code: 'dog', url } }] }), bare),
    ).toBe(0);
  });
});

describe('sendCall: upload_and_send', () => {
  const row = (attempts: number): OutboxRow =>
    ({
      id: 1,
      kind: 'upload_and_send',
      op: 'sendMessage',
      chatId: 7,
      priority: 'reply',
      attempts,
      sentAt: 9_000,
      args: JSON.stringify({
        chat_id: 7,
        media: { type: 'file', source: '/data/report.pdf' },
        message: { text: 'Here is your document.' },
      }),
    }) as OutboxRow;

  it('uploads once and sends once when the answer to the message is lost', async () => {
    const platform = new Platform(['stored', 'stored', 'ok']);
    const via = { gateway: platform, upload: platform.upload, now: () => 10_000 };
    const answer = (await sendCall(row(1), via, new ClaimedMessages())) as Answer & { attachment: unknown };
    expect(platform.stored).toHaveLength(1);
    expect(platform.uploads).toBe(1);
    expect(answer.message.body.mid).toBe('m1');
    expect(answer.attachment).toEqual({ type: 'file', payload: { token: 'tok1' } });
  });

  it('after a restart, finds the message already there before uploading again', async () => {
    const platform = new Platform([]);
    platform.stored.push({
      sender: { is_bot: true },
      timestamp: 9_200,
      body: {
        text: 'Here is your document.',
        mid: 'before',
        attachments: [
          { type: 'file', payload: { url: 'https://cdn.example/f/1', token: 'old' }, filename: 'report.pdf' },
        ],
      },
    });
    const via = { gateway: platform, upload: platform.upload, now: () => 10_000 };
    const answer = (await sendCall(row(2), via, new ClaimedMessages())) as Answer & { attachment: unknown };
    expect(answer.message.body.mid).toBe('before');
    expect(answer.attachment).toEqual({ type: 'file', payload: { token: 'old' } });
    expect(platform.uploads).toBe(0);
    expect(platform.sends).toBe(0);
  });
});

describe('sendCommentOnce', () => {
  /** Comments under one channel post, listed oldest first as the platform does. */
  class Comments {
    stored: Stored[] = [];
    sends = 0;
    constructor(private readonly failures: Array<'stored' | 'ok'>) {}
    async submit(job: Job): Promise<unknown> {
      if (job.op === 'getComments') {
        expect(job.args).toEqual({ message_id: 'mid.post', count: 20 });
        return { messages: [...this.stored] };
      }
      this.sends++;
      const text = String((job.args as { text?: string }).text);
      const message = { sender: { is_bot: true }, timestamp: 10_000, body: { text, mid: `c${this.sends}` } };
      this.stored.push(message);
      if ((this.failures.shift() ?? 'ok') === 'ok') return { message };
      if (job.sendPolicy !== 'at-most-once') return this.submit(job); // the scheduler's own retry
      throw new DeadLetterError('ambiguous', 'sendComment', undefined, new Error('reset'), 'no answer');
    }
  }
  const comment = { op: 'sendComment', args: { message_id: 'mid.post', text: 'Thanks!' } } as Job;

  it('reads the post’s comments back instead of commenting twice', async () => {
    const comments = new Comments(['stored']);
    const answer = (await sendCommentOnce(comments, comment, 9_000)) as Answer;
    expect(answer.message.body.mid).toBe('c1');
    expect(comments.stored).toHaveLength(1);
  });

  it('takes the earliest unclaimed of identical comments (listed oldest first)', async () => {
    const comments = new Comments([]);
    for (const mid of ['a', 'b'])
      comments.stored.push({ sender: { is_bot: true }, timestamp: 9_500, body: { text: 'Thanks!', mid } });
    const claimed = new ClaimedMessages();
    const one = (await sendCommentOnce(comments, comment, 9_000, true, claimed)) as Answer;
    const two = (await sendCommentOnce(comments, comment, 9_000, true, claimed)) as Answer;
    expect([one.message.body.mid, two.message.body.mid]).toEqual(['a', 'b']);
    expect(comments.sends).toBe(0);
  });
});
