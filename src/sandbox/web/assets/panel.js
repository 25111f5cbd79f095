// The side panel: the selected conversation's flow, its current step on the flow's graph, its context,
// timers and the history of its events, step by step.
import { inspector, sandbox } from './api.js';
import { deadLettersSection } from './dead-letters.js';
import { clock, h, relativeTime, panelSection as section } from './dom.js';
import { graphParts } from './graph-view.js';
import { icon } from './icons.js';
import { jumpSection } from './jump.js';
import { sendEventSection } from './send-event.js';
import { tasksSection, valueText } from './tasks-section.js';

const EVENT_ICON = { update: 'chat', timer: 'bell', effect: 'send', task: 'send' };
const iconOf = (kind) => icon(Object.entries(EVENT_ICON).find(([k]) => kind.includes(k))?.[1] ?? 'chat');

/** The side panel; `show(user)` picks the conversation, `refresh()` redraws it. */
export class Panel {
  constructor(el) {
    this.el = el;
    this.user = undefined;
    this.state = undefined;
    this.pending = undefined;
  }

  /** The inspector's state (flows, problems), or undefined when no engine is attached. */
  setState(state) {
    this.state = state;
    this.refresh();
  }

  show(user) {
    this.user = user;
    this.refresh();
  }

  /**
   * Redraws soon; several triggers in a row cost one request. While a field of the panel is being typed
   * into ("Send event", "Jump"), the redraw waits until the focus leaves the field for something that is
   * not another of the panel's fields: a redraw replaces the fields, and the person typing would lose the
   * focus and what the next key press adds (the panel redraws on every step, and every 5 s on PostgreSQL).
   */
  refresh() {
    if (this.pending || this.release) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      if (this.fieldInFocus()) return this.holdWhileTyping();
      this.redraw();
    }, 60);
  }

  /** After the panel's own form was sent (by its button or by Enter): redraw now, the focus kept. */
  redrawAfterAction() {
    this.letGo();
    clearTimeout(this.pending);
    this.pending = undefined;
    const name = this.fieldInFocus()?.getAttribute('name');
    this.afterAction = true;
    this.redraw().then(() => {
      this.afterAction = false;
      if (name) this.el.querySelector(`[name="${CSS.escape(name)}"]`)?.focus();
    });
  }

  redraw() {
    return this.draw().catch((error) =>
      this.el.replaceChildren(this.header(), h('p', { class: 'error' }, error.message)),
    );
  }

  fieldInFocus(element = document.activeElement) {
    return element && this.el.contains(element) && element.matches('input, textarea, select')
      ? element
      : undefined;
  }

  holdWhileTyping() {
    this.release = (event) => {
      if (this.fieldInFocus(event.relatedTarget)) return; // on to the next field
      if (event.relatedTarget && this.el.contains(event.relatedTarget)) {
        // A press of one of the panel's buttons: a redraw before its mouseup would swallow the click.
        const clicked = () => {
          if (!this.release) return;
          this.letGo();
          this.refresh();
        };
        this.el.addEventListener('click', clicked, { once: true });
        return;
      }
      this.letGo();
      this.refresh();
    };
    this.el.addEventListener('focusout', this.release);
    this.el.dataset.held = ''; // tests wait for it
  }

  letGo() {
    if (this.release) this.el.removeEventListener('focusout', this.release);
    this.release = undefined;
    delete this.el.dataset.held;
  }

  header(extra) {
    return h(
      'header',
      { class: 'panel-head' },
      h('h2', {}, 'Conversation'),
      this.user ? h('span', { class: 'muted' }, this.user.name) : null,
      extra,
    );
  }

  /** On PostgreSQL (several instances): this process's role, one line under the heading. */
  roleLine() {
    const cluster = this.state?.cluster;
    if (!cluster) return null;
    return h(
      'p',
      { class: 'cluster-role muted small', 'aria-label': 'Instance' },
      'PostgreSQL · instance ',
      h('strong', { class: 'member' }, cluster.member),
      ` · ${cluster.partitions} of 64 partitions · `,
      cluster.dispatcher ? 'dispatcher (sends for all)' : 'not the dispatcher',
      ` · ${cluster.members} live instance${cluster.members === 1 ? '' : 's'}`,
    );
  }

  async draw() {
    if (!this.state?.ready) {
      this.el.replaceChildren(
        this.header(),
        h(
          'p',
          { class: 'hint' },
          'No engine is attached to this sandbox. Run ',
          h('code', {}, 'npm start'),
          ' (botflow run) to chat with your flows and inspect them here.',
        ),
      );
      return;
    }
    const failed = (await deadLettersSection(() => this.refresh())) ?? [];
    if (!this.user) {
      this.el.replaceChildren(
        ...[this.header(), this.roleLine(), failed].flat().filter((part) => part !== null),
        h(
          'p',
          { class: 'hint' },
          'Pick a person to see their conversation: flow, step, context, timers and history.',
        ),
      );
      return;
    }
    const conversation = await inspector.conversation(this.user.user_id);
    const s = conversation.session;
    const userId = this.user.user_id;
    const parts = s
      ? this.sessionParts(s)
      : [h('p', { class: 'hint' }, 'No session yet: press Start, or send a command such as /signup.')];
    parts.push(this.timersSection(conversation.timers, userId));
    if (conversation.tasks?.length) parts.push(tasksSection(conversation.tasks));
    parts.push(historySection(conversation.history));
    const jump = jumpSection({
      flows: this.state.flows,
      user: this.user,
      chatId: this.chatIdOf?.(),
      current: s ? { flowId: s.flowId, step: s.step[0], vars: s.context?.vars ?? {} } : undefined,
      draft: this.jumpDraft?.userId === userId ? this.jumpDraft : undefined,
      onDraft: (chosen) => {
        this.jumpDraft = { userId, ...chosen };
      },
      onDone: () => {
        this.jumpDraft = undefined;
        this.redrawAfterAction();
      },
    });
    if (jump) parts.push(jump);
    parts.push(
      sendEventSection({
        user: this.user,
        result: this.sentEvent?.userId === userId ? this.sentEvent : undefined,
        onSent: (result) => {
          this.sentEvent = { userId, ...result };
          this.redrawAfterAction();
        },
      }),
    );
    const note =
      this.saved?.userId === userId
        ? h('p', { class: this.saved.error ? 'error' : 'hint saved-note', role: 'status' }, this.saved.text)
        : null;
    // The person started typing into one of the panel's fields while its data came: draw once they leave it.
    if (this.fieldInFocus() && !this.afterAction) return this.holdWhileTyping();
    // replaceChildren writes a null as the text "null": leave the absent parts out.
    this.el.replaceChildren(
      ...[
        this.header(
          h('span', { class: 'head-actions' }, s ? this.saveButton(userId) : null, this.resetButton()),
        ),
        this.roleLine(),
        note,
        failed,
        parts,
      ]
        .flat()
        .filter((part) => part !== null && part !== undefined),
    );
  }

  /** The session `s`: its flow and step, the flow's graph (when its version is loaded) and its context. */
  sessionParts(s) {
    const parts = [];
    const flow = this.state.flows.find((f) => f.id === s.flowId);
    const current = s.step[0];
    parts.push(
      h(
        'div',
        { class: 'flow-card' },
        h(
          'div',
          { class: 'flow-title' },
          h('span', { class: 'muted' }, 'flow'),
          h('strong', {}, s.flowId),
          h('span', { class: `pill ${s.status === 'active' ? 'pill-ok' : ''}` }, s.status),
        ),
        h(
          'div',
          { class: 'flow-step' },
          h('span', { class: 'muted' }, 'step'),
          h('strong', { class: 'current-step', 'aria-label': 'Current step' }, s.step.join(' › ')),
        ),
        h(
          'div',
          { class: 'flow-meta muted' },
          `version ${s.flowVersion.slice(0, 10)} · revision ${s.revision}${flow ? '' : ' · older version, not loaded'}`,
        ),
      ),
    );
    if (flow) parts.push(section('Graph', ...graphParts(this, flow, current)));
    const vars = s.context?.vars ?? {};
    const rows = Object.entries(vars).map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, valueText(v))));
    if (s.context?.retries)
      rows.push(h('tr', { class: 'muted' }, h('th', {}, 'retries'), h('td', {}, String(s.context.retries))));
    parts.push(
      section(
        'Context',
        rows.length
          ? h('table', { class: 'kv' }, h('tbody', {}, rows))
          : h('p', { class: 'muted' }, 'Nothing saved yet.'),
      ),
    );
    return parts;
  }

  /** A button's click handler: disables the button, runs `run`, then redraws. */
  act(run) {
    return async (event) => {
      event.target.disabled = true;
      await run();
      this.refresh();
    };
  }

  /** The armed timers, each with "fire now", and the buttons that advance the conversation's clock. */
  timersSection(timers, userId) {
    const clockButton = (label, ms) =>
      h(
        'button',
        {
          type: 'button',
          class: 'btn btn-small',
          title: `As if ${label} passed for this conversation: its reminders and timeouts due by then fire now`,
          onclick: this.act(() => inspector.advance(userId, ms)),
        },
        `+${label}`,
      );
    const timer = (t) =>
      h(
        'li',
        {},
        icon('bell'),
        h('strong', {}, t.name),
        h(
          'span',
          { class: 'muted', title: new Date(t.fireAt).toISOString() },
          ` fires ${relativeTime(t.fireAt)}`,
        ),
        h(
          'button',
          { type: 'button', class: 'link-btn', onclick: this.act(() => inspector.fireNow(userId, t.id)) },
          'fire now',
        ),
      );
    return section(
      'Timers',
      timers.length
        ? h('ul', { class: 'timers' }, timers.map(timer))
        : h('p', { class: 'muted' }, 'No timer armed.'),
      timers.length
        ? h(
            'div',
            { class: 'clock-row', role: 'group', 'aria-label': 'Advance the clock' },
            h('span', { class: 'muted small' }, 'Advance the clock'),
            clockButton('10 min', 10 * 60_000),
            clockButton('1 h', 3_600_000),
            clockButton('1 day', 86_400_000),
          )
        : null,
    );
  }

  /** "Reset": ends the conversation and clears the dialog. */
  resetButton() {
    return h(
      'button',
      {
        type: 'button',
        class: 'btn btn-small',
        title: 'End this conversation and clear the dialog: the next message or Start begins afresh',
        'aria-label': `Reset ${this.user.name}`,
        onclick: async (event) => {
          event.target.disabled = true;
          await inspector.reset(this.user.user_id);
          await sandbox.clearDialog(this.user.user_id).catch(() => {}); // never started: nothing to clear
          this.refresh();
        },
      },
      'Reset',
    );
  }

  /** "Save as test": writes the chat as a transcript test; the outcome shows as a note under the heading. */
  saveButton(userId) {
    return h(
      'button',
      {
        type: 'button',
        class: 'btn btn-small',
        title: 'Write this chat (since the last Start) as a transcript test in the flows folder',
        onclick: async (event) => {
          event.target.disabled = true;
          try {
            const { file } = await inspector.saveTranscript(userId);
            this.saved = { userId, text: `Saved as ${file}: npx botflow test runs it.`, error: false };
          } catch (error) {
            this.saved = { userId, text: `Not saved: ${error.message}`, error: true };
          }
          this.refresh();
        },
      },
      'Save as test',
    );
  }
}

/** The conversation's events, newest first, each with its outcome. */
function historySection(history) {
  return section(
    `History (${history.length})`,
    history.length
      ? h(
          'ol',
          { class: 'history' },
          history.map((e) =>
            h(
              'li',
              { class: `ev ev-${e.status}` },
              h('span', { class: 'ev-icon', title: e.kind }, iconOf(e.kind)),
              h('span', { class: 'ev-text' }, e.summary),
              h('time', { class: 'muted' }, clock(e.at)),
              e.error ? h('div', { class: 'ev-error' }, e.error) : null,
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'No events yet.'),
  );
}
