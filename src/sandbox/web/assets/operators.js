// The operators' chat a flow names (docs/handoff.md), played by its "Operator" member: the requests with
// their Take and Done buttons, the person's relayed messages, and the operator's replies, /set and /done.
// Everything goes through the sandbox's control API as a member of that group chat, so the bot gets the
// same updates it would get from a real operator.
import { sandbox } from './api.js';
import { ChatColumn } from './chat.js';
import { h } from './dom.js';

const quoted = (text) => (text && text.length > 80 ? `${text.slice(0, 79)}…` : (text ?? 'attachment'));

/** A group chat column: `chat` is `{ chat_id, title }`, `operator` the member the page acts as. */
export class GroupChatColumn extends ChatColumn {
  constructor(chat, operator, handlers) {
    super({ ...operator, name: chat.title }, handlers);
    this.operator = operator;
    this.groupChatId = chat.chat_id;
    this.chatId = chat.chat_id;
    this.key = `chat:${chat.chat_id}`;
    this.replyTo = undefined;
    this.el.setAttribute('aria-label', `Operators' chat ${chat.title}`);
    this.el.classList.add('chat-group');
    this.el.removeAttribute('data-user-id');
    this.el.dataset.chatId = chat.chat_id;
    // No Start/Stop in a group chat: the bot is a member already. Say who the page acts as instead.
    this.el.querySelector('.chat-tools')?.remove();
    this.el.querySelector('.chat-title .muted').textContent =
      `chat ${chat.chat_id} · you are ${operator.name}`;
    this.el.querySelector('.chat-head .icon-btn')?.setAttribute('aria-label', `Close ${chat.title}`);
    this.replyBar = h('div', {
      class: 'reply-bar',
      hidden: true,
      role: 'group',
      'aria-label': 'Replying to',
    });
    const composer = this.el.querySelector('.composer');
    composer.before(this.replyBar);
    this.text.placeholder = 'Reply to a message of the bot: text, a photo, /set var value, /done';
  }

  /** Chooses the message the next one replies to (as the platform's Reply does), or none. */
  setReplyTo(message) {
    this.replyTo = message;
    this.replyBar.hidden = !message;
    this.replyBar.replaceChildren(
      ...(message
        ? [
            h('span', { class: 'reply-quote' }, `↩ ${quoted(message.text)}`),
            h(
              'button',
              {
                type: 'button',
                class: 'btn btn-small',
                'aria-label': 'Cancel the reply',
                onclick: () => this.setReplyTo(undefined),
              },
              '×',
            ),
          ]
        : []),
    );
    if (message) this.text.focus();
  }

  async send(message) {
    const reply_to = this.replyTo?.message_id;
    const sent = await sandbox.send(this.user.user_id, {
      ...message,
      chat_id: this.groupChatId,
      ...(reply_to ? { reply_to } : {}),
    });
    this.setReplyTo(undefined); // as in the platform's apps: a reply is for one message
    return sent;
  }

  load() {
    return sandbox.view(this.user.user_id, this.groupChatId);
  }

  update(view) {
    super.update(view);
    this.chatId = this.groupChatId;
    this.status.textContent = 'group';
    this.status.className = 'pill pill-ok';
    if (view.messages.length === 0)
      this.messages.replaceChildren(
        h('p', { class: 'empty' }, "No requests yet: a person's handoff step posts them here."),
      );
  }

  messageView(m) {
    const el = super.messageView(m);
    const bubble = el.querySelector('.bubble');
    const link = m.message?.link;
    if (link?.type === 'reply')
      bubble.prepend(h('div', { class: 'msg-quote' }, `↩ ${quoted(link.message?.text)}`));
    if (m.from !== 'me') {
      const sender = m.message?.sender;
      bubble.prepend(
        h(
          'div',
          { class: 'msg-sender' },
          sender?.name ?? sender?.first_name ?? (m.from === 'bot' ? 'bot' : ''),
        ),
      );
    }
    if (m.from === 'bot')
      el.append(
        h(
          'button',
          {
            type: 'button',
            class: 'reply-btn',
            'aria-label': `Reply to: ${quoted(m.text)}`,
            onclick: (e) => {
              e.stopPropagation();
              this.setReplyTo(m);
            },
          },
          '↩ Reply',
        ),
      );
    return el;
  }
}

/** The operators' chats the flows name, each with the member the page plays (its owner, "Operator"). */
export async function operatorsChats(ids) {
  const found = await Promise.all(
    (ids ?? []).map(async (chatId) => {
      try {
        const { chat, members } = await sandbox.chat(chatId);
        const ownerId = chat.owner_id ?? members.find((m) => m.is_owner)?.user_id;
        const owner = members.find((m) => m.user_id === ownerId);
        if (!owner) return [];
        return [
          {
            chat: { chat_id: chatId, title: chat.title ?? `chat ${chatId}` },
            operator: { user_id: owner.user_id, name: owner.name ?? owner.first_name ?? 'Operator' },
          },
        ];
      } catch {
        return []; // not made yet in this sandbox: the next flows event looks again
      }
    }),
  );
  return found.flat();
}
