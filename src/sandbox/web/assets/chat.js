// One person's chat with the bot: messages as they see them, keyboards, notifications and the composer.
import { fileToBase64, sandbox } from './api.js';
import { avatar, clock, h, markedText } from './dom.js';
import { icon } from './icons.js';

const MEDIA_KIND = (file) =>
  file.type.startsWith('image/')
    ? 'image'
    : file.type.startsWith('video/')
      ? 'video'
      : file.type.startsWith('audio/')
        ? 'audio'
        : 'file';

const sizeText = (bytes) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 ** 2
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1024 ** 2).toFixed(1)} MB`;

function contactOf(attachment) {
  const vcf = attachment.payload?.vcf_info ?? '';
  const name = /FN:(.*)/.exec(vcf)?.[1]?.trim() ?? attachment.payload?.max_info?.name ?? 'Contact';
  const phone = /TEL[^:]*:(.*)/.exec(vcf)?.[1]?.trim();
  return { name, phone };
}

/** A sandbox file URL (`http://host:port/_files/…`) as a path of this page's origin; other URLs as they are. */
function ownPath(url) {
  if (typeof url !== 'string') return url;
  const m = /^https?:\/\/[^/]+(\/_(?:files|stickers)\/.*)$/.exec(url);
  return m ? m[1] : url;
}

function attachmentView(a) {
  // The sandbox's own files by path: a page opened after a restart on another port still finds them.
  const url = ownPath(a.payload?.url);
  switch (a.type) {
    case 'image':
      return h(
        'a',
        { class: 'att att-image', href: url, target: '_blank', rel: 'noopener' },
        h('img', { src: url, alt: 'photo', loading: 'lazy' }),
      );
    case 'video':
      return h('video', { class: 'att att-video', src: url, controls: true, preload: 'metadata' });
    case 'audio':
      return h('audio', { class: 'att att-audio', src: url, controls: true, preload: 'none' });
    case 'file':
      return h(
        'a',
        { class: 'att att-file', href: url, target: '_blank', rel: 'noopener', download: a.filename },
        h('span', { class: 'att-icon' }, icon('file')),
        h('span', { class: 'att-name' }, a.filename ?? 'file'),
        a.size !== undefined ? h('span', { class: 'att-meta' }, sizeText(a.size)) : null,
      );
    case 'contact': {
      const c = contactOf(a);
      return h(
        'div',
        { class: 'att att-contact' },
        icon('contact'),
        h('strong', {}, c.name),
        c.phone ? h('span', {}, c.phone) : null,
      );
    }
    case 'location':
      return h(
        'div',
        { class: 'att att-location' },
        icon('location'),
        `${a.latitude.toFixed(4)}, ${a.longitude.toFixed(4)}`,
      );
    case 'sticker':
      return h('div', { class: 'att att-sticker' }, '🗒 sticker');
    default:
      return h('div', { class: 'att att-other' }, `[${a.type}]`);
  }
}

const SENDER_ACTIONS = {
  typing_on: 'is typing',
  sending_photo: 'is sending a photo',
  sending_video: 'is sending a video',
  sending_audio: 'is sending audio',
  sending_file: 'is sending a file',
  mark_seen: undefined,
};

const BUTTON_HINT = {
  link: 'link',
  request_contact: 'contact',
  request_geo_location: 'location',
  message: 'chat',
};

/** A chat column: create with the person, `update(view)` with what they see, `notify(text)` for a toast. */
export class ChatColumn {
  constructor(user, { onSelect, onClose, onError }) {
    this.user = user;
    /** Which column this is in the page (a person's id; an operators' chat's column says otherwise). */
    this.key = user.user_id;
    this.onError = onError;
    this.chatId = undefined;
    this.seenEdits = new Map();
    this.messages = h('div', { class: 'messages', role: 'log', 'aria-label': `Messages with ${user.name}` });
    // Reading older messages stops following the end; a photo that finishes loading keeps the end in view.
    for (const type of ['wheel', 'touchmove'])
      this.messages.addEventListener(type, () => this.unstickIfUp(), { passive: true });
    this.messages.addEventListener('load', () => this.stickToBottom && this.scrollToEnd(), true);
    this.toasts = h('div', { class: 'toasts' });
    this.action = h('div', { class: 'chat-action', 'aria-live': 'polite' });
    this.status = h('span', { class: 'pill' }, 'not started');
    this.payload = h('input', {
      class: 'payload',
      name: 'payload',
      placeholder: 'deep-link payload',
      'aria-label': 'Start payload',
    });
    this.startButton = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Start');
    this.stopButton = h(
      'button',
      { type: 'button', class: 'btn', onclick: () => this.act(() => sandbox.stop(user.user_id)) },
      'Stop',
    );
    this.text = h('input', {
      name: 'text',
      class: 'text',
      placeholder: 'Message',
      autocomplete: 'off',
      'aria-label': 'Message',
    });
    this.fileInput = h('input', {
      type: 'file',
      hidden: true,
      multiple: true,
      'aria-label': 'File to send',
      onchange: () => this.sendFiles(),
    });
    this.el = h(
      'article',
      {
        class: 'chat',
        'aria-label': `Chat of ${user.name}`,
        dataset: { userId: user.user_id },
        onclick: () => onSelect(this),
      },
      h(
        'header',
        { class: 'chat-head' },
        avatar(user),
        h(
          'div',
          { class: 'chat-title' },
          h('strong', {}, user.name),
          h('span', { class: 'muted' }, `id ${user.user_id}${user.locale ? ` · ${user.locale}` : ''}`),
        ),
        this.status,
        h(
          'button',
          {
            type: 'button',
            class: 'icon-btn',
            title: 'Close this chat',
            'aria-label': `Close chat of ${user.name}`,
            onclick: (e) => {
              e.stopPropagation();
              onClose(this);
            },
          },
          icon('close'),
        ),
      ),
      h(
        'form',
        {
          class: 'chat-tools',
          onsubmit: (e) => {
            e.preventDefault();
            this.start();
          },
        },
        this.payload,
        this.startButton,
        this.stopButton,
      ),
      this.messages,
      this.action,
      this.toasts,
      this.composer(),
    );
  }

  composer() {
    const lat = h('input', { name: 'lat', value: '52.5200', inputmode: 'decimal', 'aria-label': 'Latitude' });
    const lon = h('input', {
      name: 'lon',
      value: '13.4050',
      inputmode: 'decimal',
      'aria-label': 'Longitude',
    });
    const where = h(
      'details',
      { class: 'popover' },
      h(
        'summary',
        { class: 'icon-btn', title: 'Share a location', 'aria-label': 'Share location' },
        icon('location'),
      ),
      h(
        'div',
        { class: 'popover-body' },
        h('label', {}, 'Latitude', lat),
        h('label', {}, 'Longitude', lon),
        h(
          'button',
          {
            type: 'button',
            class: 'btn btn-primary',
            onclick: () => {
              where.open = false;
              this.act(() =>
                this.send({
                  location: { latitude: Number(lat.value), longitude: Number(lon.value) },
                }),
              );
            },
          },
          'Send location',
        ),
      ),
    );
    return h(
      'form',
      {
        class: 'composer',
        onsubmit: (e) => {
          e.preventDefault();
          this.sendText();
        },
      },
      h(
        'button',
        {
          type: 'button',
          class: 'icon-btn',
          title: 'Attach a photo or a file',
          'aria-label': 'Attach a file',
          onclick: () => this.fileInput.click(),
        },
        icon('attach'),
      ),
      this.fileInput,
      h(
        'button',
        {
          type: 'button',
          class: 'icon-btn',
          title: 'Share my contact',
          'aria-label': 'Share contact',
          onclick: () => this.act(() => this.send({ contact: {} })),
        },
        icon('contact'),
      ),
      where,
      this.text,
      h('button', { type: 'submit', class: 'send-btn', 'aria-label': 'Send' }, icon('send')),
    );
  }

  /** Sends as this column's person (a group chat's column adds its chat and the message replied to). */
  send(message) {
    return sandbox.send(this.user.user_id, message);
  }

  /** What the column shows (`GET /_sandbox/view`). */
  load() {
    return sandbox.view(this.user.user_id);
  }

  unstickIfUp() {
    this.stickToBottom =
      this.messages.scrollHeight - this.messages.scrollTop - this.messages.clientHeight < 80;
  }

  scrollToEnd() {
    this.messages.scrollTop = this.messages.scrollHeight;
  }

  /** Runs a person's action; errors show in the column (the server says what was wrong). */
  async act(action) {
    // Whatever the person does, they want to see the answer: follow the end of the chat again.
    this.stickToBottom = true;
    try {
      return await action();
    } catch (error) {
      this.toast(error.message, 'error');
      this.onError?.(error);
    }
  }

  start() {
    const payload = this.payload.value.trim();
    return this.act(() => sandbox.start(this.user.user_id, payload || undefined));
  }

  async sendText() {
    const text = this.text.value;
    if (!text.trim()) return;
    this.text.value = '';
    const sent = await this.act(() => this.send({ text }));
    if (!sent) this.text.value = text;
  }

  async sendFiles() {
    const files = [...this.fileInput.files];
    this.fileInput.value = '';
    if (files.length === 0) return;
    const caption = this.text.value.trim();
    this.text.value = '';
    await this.act(async () => {
      const encoded = await Promise.all(
        files.map(async (f) => ({
          type: MEDIA_KIND(f),
          filename: f.name,
          content_type: f.type || 'application/octet-stream',
          content_base64: await fileToBase64(f),
        })),
      );
      return this.send({ files: encoded, ...(caption ? { text: caption } : {}) });
    });
  }

  press(message, button) {
    if (button.type === 'link') return window.open(button.url, '_blank', 'noopener');
    const by = button.type === 'callback' ? { payload: button.payload } : { text: button.text };
    return this.act(async () => {
      const result = await sandbox.press(this.user.user_id, message.message_id, by);
      // Neither tells the bot anything: say what the person's client would do.
      if (button.type === 'clipboard') {
        await navigator.clipboard?.writeText(button.payload).catch(() => {});
        this.toast(`Copied: ${button.payload}`);
      } else if (button.type === 'open_app') {
        this.toast(
          `Opens the mini-app of ${button.web_app ?? button.contact_id ?? 'this bot'} (no mini-app in the sandbox)`,
        );
      }
      return result;
    });
  }

  /** Shows a notification the way the platform does: a short-lived toast over the chat. */
  toast(text, kind = 'notification') {
    const el = h(
      'div',
      {
        class: `toast toast-${kind}`,
        role: kind === 'error' ? 'alert' : 'status',
        onclick: () => el.remove(),
      },
      icon(kind === 'notification' ? 'bell' : 'warning'),
      text,
    );
    this.toasts.append(el);
    setTimeout(() => el.remove(), kind === 'error' ? 8000 : 10_000);
  }

  /** The bot's sender action (typing, sending a photo…), shown under the messages for a few seconds. */
  showAction(action) {
    clearTimeout(this.actionTimer);
    const what = SENDER_ACTIONS[action];
    this.action.textContent = what ? `bot ${what}…` : '';
    if (what) this.actionTimer = setTimeout(() => (this.action.textContent = ''), 5000);
  }

  setSelected(selected) {
    this.el.classList.toggle('selected', selected);
  }

  /** Redraws the messages from the person's view (`GET /_sandbox/view`). */
  update(view) {
    this.chatId = view.chat?.chat_id;
    const started = this.chatId !== undefined && !view.bot_stopped;
    this.status.textContent =
      this.chatId === undefined ? 'not started' : view.bot_stopped ? 'stopped' : 'active';
    this.status.className = `pill ${started ? 'pill-ok' : ''}`;
    this.startButton.textContent = started ? 'Restart' : 'Start';
    this.stopButton.disabled = !started;
    const nearBottom = this.messages.scrollHeight - this.messages.scrollTop - this.messages.clientHeight < 80;
    const items = view.messages.map((m) => this.messageView(m));
    if (items.length === 0) {
      items.push(
        h(
          'p',
          { class: 'empty' },
          this.chatId === undefined
            ? 'Press Start to open the dialog with the bot (a payload acts as a deep link).'
            : 'No messages yet.',
        ),
      );
    }
    this.messages.replaceChildren(...items);
    if (nearBottom || this.stickToBottom || this.firstDraw !== false) this.scrollToEnd();
    this.firstDraw = false;
  }

  messageView(m) {
    const text = m.text ? markedText(m.text, m.markup) : [];
    const editKey = m.edited ? `${m.text}|${JSON.stringify(m.keyboard ?? null)}` : undefined;
    const flash =
      editKey !== undefined &&
      this.seenEdits.has(m.message_id) &&
      this.seenEdits.get(m.message_id) !== editKey;
    const firstSeenEdit =
      editKey !== undefined && !this.seenEdits.has(m.message_id) && this.seenEdits.size > 0;
    if (editKey !== undefined) this.seenEdits.set(m.message_id, editKey);
    else this.seenEdits.set(m.message_id, '');
    return h(
      'div',
      {
        class: `msg msg-${m.from} ${flash || firstSeenEdit ? 'flash' : ''}`,
        dataset: { messageId: m.message_id },
      },
      h(
        'div',
        { class: 'bubble' },
        m.attachments.map(attachmentView),
        text.length ? h('div', { class: 'msg-text' }, text) : null,
        h(
          'div',
          { class: 'msg-meta' },
          m.edited ? h('span', { class: 'edited' }, 'edited') : null,
          h('time', {}, clock(m.timestamp)),
        ),
      ),
      m.keyboard ? this.keyboardView(m) : null,
    );
  }

  keyboardView(m) {
    return h(
      'div',
      { class: 'keyboard', role: 'group', 'aria-label': 'Buttons' },
      m.keyboard.map((row) =>
        h(
          'div',
          { class: 'kb-row' },
          row.map((b) =>
            h(
              'button',
              {
                type: 'button',
                class: `kb-btn kb-${b.type}`,
                title: b.type === 'link' ? b.url : undefined,
                onclick: () => this.press(m, b),
              },
              b.text,
              BUTTON_HINT[b.type] ? h('span', { class: 'kb-hint' }, icon(BUTTON_HINT[b.type])) : null,
            ),
          ),
        ),
      ),
    );
  }
}
