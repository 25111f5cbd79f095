/**
 * Text formatting as the platform stores it: `format: html | markdown` turns into plain text plus markup
 * elements (positions in the plain text), and @usernames of known people into user mentions; without a
 * format the text is kept as sent. Checked on the function and over HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { formatMessage } from '../../src/sandbox/markup.ts';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog } from './helpers.ts';

let h: SandboxClient | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('formatting', () => {
  it('reads the HTML tags of the description, strips others, decodes entities', () => {
    expect(
      formatMessage(
        'Welcome! <b>Bold</b>, <i>it</i>, <u>u</u>, <s>s</s>, <code>c</code>, <mark>m</mark> &amp; <a href="https://x.org">link</a> <blink>kept</blink>',
        'html',
      ),
    ).toEqual({
      text: 'Welcome! Bold, it, u, s, c, m & link kept',
      markup: [
        { type: 'strong', from: 9, length: 4 },
        { type: 'emphasized', from: 15, length: 2 },
        { type: 'underline', from: 19, length: 1 },
        { type: 'strikethrough', from: 22, length: 1 },
        { type: 'monospaced', from: 25, length: 1 },
        { type: 'highlighted', from: 28, length: 1 },
        { type: 'link', from: 32, length: 4, url: 'https://x.org' },
      ],
    });
    // Nested, and a mention by id.
    expect(formatMessage('<b>a <i>b</i></b> <a href="max://user/42">Ann</a>', 'html')).toEqual({
      text: 'a b Ann',
      markup: [
        { type: 'strong', from: 0, length: 3 },
        { type: 'emphasized', from: 2, length: 1 },
        { type: 'user_mention', from: 4, length: 3, user_id: 42 },
      ],
    });
  });

  it('reads the markdown of the description', () => {
    expect(
      formatMessage('**bold** _it_ ~~s~~ ++u++ `c` ^^m^^ [docs](https://x.org)\n# Title', 'markdown'),
    ).toEqual({
      text: 'bold it s u c m docs\nTitle',
      markup: [
        { type: 'strong', from: 0, length: 4 },
        { type: 'emphasized', from: 5, length: 2 },
        { type: 'strikethrough', from: 8, length: 1 },
        { type: 'underline', from: 10, length: 1 },
        { type: 'monospaced', from: 12, length: 1 },
        { type: 'highlighted', from: 14, length: 1 },
        { type: 'link', from: 16, length: 4, url: 'https://x.org' },
        { type: 'heading', from: 21, length: 5 },
      ],
    });
  });

  it('keeps a text without format as sent, marking @usernames of known people', () => {
    expect(formatMessage('<b>not html</b> hi @ann_k and @nobody', undefined, (n) => n === 'ann_k')).toEqual({
      text: '<b>not html</b> hi @ann_k and @nobody',
      markup: [{ type: 'user_mention', from: 19, length: 6, user_link: '@ann_k' }],
    });
  });

  it('is what a bot reads back over HTTP: plain text and markup', async () => {
    h = await sandboxClient();
    const { user } = await personInDialog(h.sandbox);
    const sent = await h.api.sendMessage({
      user_id: user.user_id,
      text: 'What is your <b>name</b>?',
      format: 'html',
    });
    expect(sent.message.body).toMatchObject({
      text: 'What is your name?',
      markup: [{ type: 'strong', from: 13, length: 4 }],
    });
    const read = await h.api.getMessage({ message_id: sent.message.body.mid });
    expect(read.body.markup).toEqual([{ type: 'strong', from: 13, length: 4 }]);
  });
});
