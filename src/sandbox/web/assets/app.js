// The playground: people on the left, their chats side by side, the selected conversation's inspector on
// the right. Everything updates live from two event streams: what people see (/_sandbox/events) and
// what the engine did (/_inspector/events).
import { botId, botPath, inspector, ServerError, sandbox } from './api.js';
import { ChatColumn } from './chat.js';
import { avatar, h } from './dom.js';
import { FlowEditorView } from './flow-editor.js';
import { icon } from './icons.js';
import { GroupChatColumn, operatorsChats } from './operators.js';
import { Panel } from './panel.js';
import { rereadStepForms } from './step-form.js';

const MAX_COLUMNS = 3;
// The chats open per bot: the default bot keeps the key it always had.
const STORAGE_KEY = botId === undefined ? 'botflow.playground.open' : `botflow.playground.open.${botId}`;

const el = {
  people: document.getElementById('people-list'),
  newPerson: document.getElementById('new-person'),
  chats: document.getElementById('chats'),
  panel: document.getElementById('panel'),
  problems: document.getElementById('problems'),
  status: document.getElementById('status'),
  bot: document.getElementById('bot-name'),
  operators: document.getElementById('operators-list'),
};

const users = new Map();
const columns = new Map();
const panel = new Panel(el.panel);
let selected;
// "Start at a step" sends the prompt to the selected person's dialog.
panel.chatIdOf = () => selected?.chatId;
// "edit file" on the graph opens the flow's file beside the chats; the step form's saves show there.
const editor = new FlowEditorView(document.getElementById('editor'), document.querySelector('.layout'));
panel.onEdit = (flow) => void editor.open(flow);
panel.onFileSaved = (flow) => editor.fileSaved(flow);

function setStatus(text, ok) {
  el.status.textContent = text;
  el.status.classList.toggle('status-ok', ok);
}

function saveOpen() {
  localStorage.setItem(STORAGE_KEY, JSON.stringify([...columns.keys()]));
}

function drawPeople() {
  const items = [...users.values()].map((u) =>
    h(
      'li',
      {},
      h(
        'button',
        {
          type: 'button',
          class: `person ${columns.has(u.user_id) ? 'open' : ''} ${selected?.key === u.user_id ? 'active' : ''}`,
          onclick: () => openChat(u),
        },
        avatar(u, 'sm'),
        h('span', { class: 'person-name' }, u.name),
        h('span', { class: 'muted' }, `#${u.user_id}`),
      ),
    ),
  );
  if (items.length === 0) items.push(h('li', { class: 'muted empty' }, 'Nobody yet: add a person below.'));
  el.people.replaceChildren(...items);
}

function select(column) {
  if (selected === column) return;
  selected = column;
  for (const c of columns.values()) c.setSelected(c === column);
  // An operators' chat is no one's conversation: the panel keeps the person it showed.
  if (!(column instanceof GroupChatColumn)) panel.show(column?.user);
  drawPeople();
  drawOperators();
}

async function refreshChat(column) {
  try {
    column.update(await column.load());
  } catch (error) {
    column.toast(error.message, 'error');
  }
}

function openColumn(key, make) {
  let column = columns.get(key);
  if (!column) {
    if (columns.size >= MAX_COLUMNS) closeChat(columns.values().next().value);
    column = make({ onSelect: select, onClose: closeChat });
    columns.set(key, column);
    el.chats.append(column.el);
    saveOpen();
    refreshChat(column);
  }
  select(column);
  column.text.focus();
}

function openChat(user) {
  openColumn(user.user_id, (handlers) => new ChatColumn(user, handlers));
}

/** The operators' chats the flows name (docs/handoff.md), played by their "Operator" member. */
let operators = [];
function drawOperators() {
  const items = operators.map(({ chat, operator }) =>
    h(
      'li',
      {},
      h(
        'button',
        {
          type: 'button',
          class: `person ${columns.has(`chat:${chat.chat_id}`) ? 'open' : ''} ${selected?.key === `chat:${chat.chat_id}` ? 'active' : ''}`,
          'aria-label': `Play the operator in ${chat.title} (${chat.chat_id})`,
          onclick: () =>
            openColumn(`chat:${chat.chat_id}`, (handlers) => new GroupChatColumn(chat, operator, handlers)),
        },
        avatar({ name: chat.title, user_id: chat.chat_id }, 'sm'),
        h('span', { class: 'person-name' }, chat.title),
        h('span', { class: 'muted' }, `${chat.chat_id}`),
      ),
    ),
  );
  el.operators.parentElement.hidden = items.length === 0;
  el.operators.replaceChildren(...items);
}

async function showOperators(state) {
  operators = await operatorsChats(state?.operatorsChats);
  drawOperators();
}

function closeChat(column) {
  columns.delete(column.key);
  column.el.remove();
  saveOpen();
  if (selected === column) select(columns.values().next().value);
  drawPeople();
}

async function addPerson(name, locale) {
  const user = await sandbox.createUser(name, locale);
  users.set(user.user_id, user);
  drawPeople();
  openChat(user);
}

el.newPerson.addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = el.newPerson.elements.name;
  const name = input.value.trim();
  if (!name) return input.focus();
  input.value = '';
  try {
    await addPerson(name, el.newPerson.elements.locale.value);
  } catch (error) {
    setStatus(error.message, false);
  }
});

// Which column a sandbox event concerns: the chat it happened in, else every column without a chat yet.
function columnsFor(event) {
  const hit = [...columns.values()].filter((c) => c.chatId === event.chat_id);
  if (hit.length > 0) return hit;
  if (event.user_id !== undefined)
    return [...columns.values()].filter((c) => c.user.user_id === event.user_id);
  return [...columns.values()].filter((c) => c.chatId === undefined);
}

const redraws = new Set();
function scheduleRedraw(column) {
  if (redraws.has(column)) return;
  redraws.add(column);
  setTimeout(() => {
    redraws.delete(column);
    if (columns.get(column.key) === column) refreshChat(column);
  }, 30);
}

function followSandbox() {
  const events = new EventSource(botPath('/_sandbox/events'));
  events.onopen = () => setStatus('live', true);
  events.onerror = () => setStatus('reconnecting…', false);
  const onChange = (message) => {
    const event = JSON.parse(message.data);
    for (const column of columnsFor(event)) {
      if (event.type === 'notification') column.toast(event.text);
      else if (event.type === 'chat.action') column.showAction(event.action);
      else scheduleRedraw(column);
      if (column === selected) panel.refresh();
    }
  };
  for (const type of [
    'message.created',
    'message.edited',
    'message.removed',
    'notification',
    'chat.changed',
    'chat.action',
  ]) {
    events.addEventListener(type, onChange);
  }
}

function showProblems(problems) {
  el.problems.hidden = problems.length === 0;
  el.problems.replaceChildren(
    h(
      'strong',
      {},
      `The flow files have ${problems.length} problem${problems.length === 1 ? '' : 's'}: the bot keeps running the last version that loaded.`,
    ),
    h(
      'ul',
      {},
      problems.map((p) => h('li', {}, h('code', {}, p))),
    ),
  );
}

async function followInspector() {
  const state = await inspector.state();
  if (!state) return panel.setState(undefined);
  panel.setState(state);
  showProblems(state.problems);
  // The operators' chats are made as the flows load: look once more shortly after.
  showOperators(state).then(
    () => operators.length === 0 && setTimeout(async () => showOperators(await inspector.state()), 1000),
  );
  if (state.cluster) {
    // On PostgreSQL the instance's role changes as others join and leave: look again now and then.
    setInterval(async () => panel.setState(await inspector.state()), 5000);
  }
  const events = new EventSource('/_inspector/events');
  events.addEventListener('flows', async () => {
    rereadStepForms(panel);
    const next = await inspector.state();
    panel.setState(next);
    showProblems(next?.problems ?? []);
    showOperators(next);
  });
  events.addEventListener('dead-letters', () => panel.refresh());
  events.addEventListener('effect', (message) => {
    if (JSON.parse(message.data).failed) panel.refresh();
  });
  events.addEventListener('step', (message) => {
    const { conversationKey } = JSON.parse(message.data);
    if (!conversationKey || !selected || conversationKey === `u:${selected.user.user_id}`) panel.refresh();
  });
}

/**
 * The embedded sandbox's own bot token (only on loopback: /_sandbox/info has it then), for a developer's
 * mini-app server to validate or sign initData with. Shown shortened; a click copies it whole.
 */
function tokenChip(token) {
  const label = h('span', {}, 'copy');
  return h(
    'button',
    {
      type: 'button',
      class: 'token-chip',
      'aria-label': "Copy the sandbox bot's token",
      title: `The sandbox bot's token: ${token}\nA local dev token, new at each start: validate or sign mini-app initData with it (docs/mini-apps.md). Click to copy.`,
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(token);
          label.textContent = 'copied ✓';
        } catch {
          label.textContent = 'copy failed: botflow run prints it';
        }
        setTimeout(() => {
          label.textContent = 'copy';
        }, 3000);
      },
    },
    icon('key'),
    h('code', {}, `${token.slice(0, 18)}…`),
    label,
  );
}

/**
 * With several bots in the sandbox, a picker: the person chats with the chosen bot (the page reloads
 * toward it, `?bot=<id>`; each bot has its own chats). With one bot there is nothing to pick.
 */
function botPicker(bots, current) {
  if (bots.length < 2) return null;
  return h(
    'select',
    {
      class: 'bot-picker',
      'aria-label': 'Bot to chat with',
      title: 'The sandbox hosts several bots: people chat with the one chosen here',
      onchange: (event) => {
        const id = Number(event.target.value);
        const url = new URL(location.href);
        if (id === bots[0].id) url.searchParams.delete('bot');
        else url.searchParams.set('bot', String(id));
        location.assign(url);
      },
    },
    bots.map((b) =>
      h('option', { value: String(b.id), selected: b.id === current }, `${b.name} @${b.username}`),
    ),
  );
}

async function main() {
  const [info, bots] = await Promise.all([sandbox.info(), sandbox.bots()]);
  const picker = botPicker(bots, info.bot.user_id);
  el.bot.replaceChildren(
    ...[
      avatar(info.bot, 'sm'),
      picker ?? h('span', {}, info.bot.name || info.bot.first_name),
      info.bot.username && !picker ? h('span', { class: 'muted' }, `@${info.bot.username}`) : null,
      info.token ? tokenChip(info.token) : null,
    ].filter(Boolean), // replaceChildren would show a null as the text "null"
  );
  for (const u of await sandbox.users()) if (!u.is_bot) users.set(u.user_id, u);
  drawPeople();
  followSandbox();
  // The inspector shows the engine run against the default bot; another bot's chats have none here.
  if (botId === undefined || Number(botId) === bots[0]?.id) await followInspector();
  else panel.setState(undefined);
  const reopened = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '[]').filter((id) => users.has(id));
  for (const id of reopened) openChat(users.get(id));
  if (!selected) panel.show(undefined);
}

main().catch((error) => {
  // A bot removed since the address was made: back to the default bot.
  if (botId !== undefined && error instanceof ServerError && error.status === 404)
    location.assign(location.pathname);
  else setStatus(`cannot reach the sandbox: ${error.message}`, false);
});
