/**
 * The storyboard of a flow: every step as the person would see it on entering it (text with its
 * formatting, media, keyboard), in every locale the flow has, with the transitions out of each step; on
 * one page, without chatting. The steps are really entered: each (step, locale) is a jump on an in-memory
 * engine, and the messages are read from its outbox, so what is shown is what the bot would send. Nothing
 * is sent and no task runs (effects only plan calls; the outbox is never dispatched).
 *
 * Variables a step shows are filled with their names (‹name›), read from the flow's files and catalogs.
 * `storyboardHtml` renders boards as one self-contained HTML file (no script, no outside resource): the
 * playground serves it and `botflow storyboard` writes it.
 */
import { createEngine } from '../engine/engine.ts';
import { jumpToStep } from '../engine/jump.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { parseFlowSourceRecord } from '../flows/flow-source.ts';
import type { StepView } from '../flows/kinds/views.ts';
import { flowDiagram } from '../flows/mermaid.ts';
import { stepViews } from '../flows/step-views.ts';
import { formatMessage, type MarkupElement } from '../sandbox/markup.ts';
import { openDatabase } from '../store/database.ts';
import { OutboxStore } from '../store/outbox.ts';
import { systemClock } from '../store/ports/clock.ts';

/** A message as the person sees it. */
export interface StoryboardMessage {
  text: string;
  markup: MarkupElement[];
  /** Keyboard rows: each button's label and what it is (callback, link, request_contact…). */
  buttons: { text: string; type: string; url?: string }[][];
  /** Attachments other than the keyboard, by type (image, video, file…). */
  media: string[];
}

/** What a step shows in one locale (or why it could not be shown). */
export interface StoryboardFrame {
  locale: string;
  messages: StoryboardMessage[];
  error?: string;
}

export interface StoryboardStep {
  id: string;
  /** The flow's first step. */
  start: boolean;
  /** Ends the dialog. */
  final: boolean;
  /** How the step's kind draws it (its shape and badge); absent for a flow without files. */
  kind?: StepView;
  frames: StoryboardFrame[];
  /** Transitions out of the step: to which step, on what (`button ok`, `valid answer`, `/cancel`…). */
  next: { to: string; label: string }[];
}

export interface Storyboard {
  flow: string;
  version: string;
  locales: string[];
  steps: StoryboardStep[];
  /** Steps reachable from anywhere (global commands), with how. */
  anywhere: { to: string; label: string }[];
}

const PERSON = 1;

/** The storyboard of one flow, in `locales` (default: the flow's catalogs, else `en`). */
export function buildStoryboard(flow: FlowDefinition, options: { locales?: string[] } = {}): Storyboard {
  const stored = storedSource(flow);
  const locales = options.locales ?? (stored?.locales.length ? stored.locales : ['en']);
  const root = flow.machine.root as unknown as {
    initial?: { target?: readonly { key: string }[] };
    states: Record<string, unknown>;
  };
  const stepIds = Object.keys(root.states).filter((s) => !s.startsWith('__'));
  const first = root.initial?.target?.[0]?.key;
  const vars = sampleVars(stored?.texts ?? '');

  const db = openDatabase({ path: ':memory:' });
  try {
    const engine = createEngine({ db, flows: [flow], secret: 'storyboard-only-never-sent-anywhere' });
    const frames = new Map<string, StoryboardFrame>();
    let n = 0;
    const keys = new Map<string, { step: string; locale: string }>();
    for (const step of stepIds) {
      for (const locale of locales) {
        const key = `u:${++n}`;
        keys.set(key, { step, locale });
        try {
          jumpToStep(
            engine.store.support,
            { conversationKey: key, flow, step, vars, chatId: n, userId: PERSON, locale },
            systemClock.now(),
          );
          frames.set(key, { locale, messages: [] });
        } catch (error) {
          frames.set(key, { locale, messages: [], error: (error as Error).message });
        }
      }
    }
    engine.processPending();
    const outbox = new OutboxStore(db);
    for (const [key, frame] of frames) {
      const failed = engine.sessions.history(key).find((e) => e.status === 'failed');
      if (failed) frame.error = failed.error ?? 'the step could not be entered';
      const own = Number(key.slice(2));
      const rows = outbox.forConversation(key).sort((a, b) => a.id - b.id);
      for (const row of rows) {
        if (row.op !== 'sendMessage' && row.op !== 'editMessage') continue;
        const args = JSON.parse(row.args) as Record<string, unknown>;
        const to = (args.chat_id ?? args.user_id) as number | undefined;
        if (to !== undefined && to !== own && to !== PERSON) continue; // an effect writing to someone else
        frame.messages.push(messageOf(args));
      }
    }
    const diagram = flowDiagram(flow);
    const edges = diagram.flatMap((item) => (item.kind === 'edge' ? [item] : []));
    const finals = new Set(diagram.flatMap((item) => (item.kind === 'final' ? [item.state] : [])));
    const views = stepViews(flow);
    const steps = stepIds.map((id): StoryboardStep => {
      const own = [...keys].filter(([, v]) => v.step === id).map(([key]) => frames.get(key)!);
      const next = edges
        .filter((e) => e.from === id)
        .map((e) => ({ to: e.to, label: e.label.replace(/^task\.(done|error)$/, 'task $1') }));
      const kind = Object.hasOwn(views, id) ? { kind: views[id]! } : {};
      return { id, start: id === first, final: finals.has(id), ...kind, frames: own, next: unique(next) };
    });
    const anywhere = diagram.flatMap((item) =>
      item.kind === 'note' ? [{ to: item.state, label: item.text.replace(/ from any step$/, '') }] : [],
    );
    return { flow: flow.id, version: flow.version, locales, steps, anywhere: unique(anywhere) };
  } finally {
    db.close();
  }
}

function unique<T>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = JSON.stringify(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The flow's stored files and catalogs (flow files), for its locales and the variables its texts show. */
function storedSource(flow: FlowDefinition): { locales: string[]; texts: string } | undefined {
  if (!flow.source) return undefined;
  try {
    const stored = parseFlowSourceRecord(flow.source);
    return {
      locales: stored.locales.map((l) => l.locale),
      texts: [...stored.files.map((f) => f.source), ...stored.locales.map((l) => l.text)].join('\n'),
    };
  } catch {
    return undefined;
  }
}

/** A sample number: `NUMBER($total, minimumFractionDigits: 2)` shows its grouping and decimals. */
export const SAMPLE_NUMBER = 1234.5;
/** A sample saved date, formatted by `DATETIME($day, …)` (a saved date reads as `2026-03-31`). */
export const SAMPLE_DATE = '2026-03-31';

/**
 * `{{name}}`, `{{a.b}}` in flow files and `$name` in catalogs' placeables (`{ $name }`,
 * `{ NUMBER($total) }`, `{ $n -> … }`) → variables showing their own names; a variable a catalog formats
 * with `NUMBER(…)` is a number and one it formats with `DATETIME(…)` a date, so the function shows them
 * formatted (a name there would render as `{NUMBER()}`).
 */
export function sampleVars(texts: string): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  // A placeable's text up to its first inner brace: `{ NUMBER($a) }`, `{ $n ->` of a selector.
  const placeables = [...texts.matchAll(/(?<!\{)\{(?!\{)([^{}]*)/g)].map((m) => m[1]!);
  const inPlaceables = (pattern: RegExp) =>
    placeables.flatMap((p) => [...p.matchAll(pattern)].map((m) => m[1]!));
  const names = [
    ...[...texts.matchAll(/\{\{\s*([A-Za-z_][\w.]*)/g)].map((m) => m[1]!),
    ...inPlaceables(/\$([A-Za-z_][\w-]*)/g),
  ];
  const numbers = new Set(inPlaceables(/\bNUMBER\(\s*\$([A-Za-z_][\w-]*)/g));
  const dates = new Set(inPlaceables(/\bDATETIME\(\s*\$([A-Za-z_][\w-]*)/g));
  // Lists that buttons are built from (`options_from: {list: slots}`) get two sample items, with the
  // fields the texts read of an item (`{{item.time}}`, `{ $item_time }`).
  const fields = [
    ...new Set([
      ...[...texts.matchAll(/\bitem\.([A-Za-z_]\w*)/g)].map((m) => m[1]!),
      ...[...texts.matchAll(/\$item_([A-Za-z_]\w*)/g)].map((m) => m[1]!),
    ]),
  ];
  for (const [, list] of texts.matchAll(/\blist:\s*([A-Za-z_]\w*)/g)) {
    vars[list!] = [1, 2].map((i) =>
      fields.length === 0
        ? `‹${list} ${i}›`
        : Object.fromEntries(
            fields.map((f) => [f, numbers.has(`item_${f}`) ? SAMPLE_NUMBER * i : `‹${f} ${i}›`]),
          ),
    );
  }
  for (const name of names) {
    if (name.startsWith('item.') || name === 'item') continue;
    const path = name.split('.');
    let at = vars;
    for (const [i, part] of path.entries()) {
      if (i === path.length - 1) {
        if (!(part in at))
          at[part] = numbers.has(name) ? SAMPLE_NUMBER : dates.has(name) ? SAMPLE_DATE : `‹${name}›`;
      } else {
        const inner = at[part];
        const next = (inner && typeof inner === 'object' ? inner : {}) as Record<string, unknown>;
        at[part] = next;
        at = next;
      }
    }
  }
  return vars;
}

function messageOf(args: Record<string, unknown>): StoryboardMessage {
  const source = typeof args.text === 'string' ? args.text : '';
  const { text, markup } = formatMessage(source, args.format as string | undefined);
  const buttons: StoryboardMessage['buttons'] = [];
  const media: string[] = [];
  for (const a of (args.attachments ?? []) as { type?: string; payload?: { buttons?: unknown } }[]) {
    if (a.type === 'inline_keyboard') {
      for (const row of (a.payload?.buttons ?? []) as { text?: string; type?: string; url?: string }[][])
        buttons.push(
          row.map((b) => ({
            text: b.text ?? '',
            type: b.type ?? 'callback',
            ...(b.url ? { url: b.url } : {}),
          })),
        );
    } else if (a.type) media.push(a.type);
  }
  return { text, markup, buttons, media };
}

const TAGS: Partial<Record<MarkupElement['type'], string>> = {
  strong: 'b',
  emphasized: 'i',
  monospaced: 'code',
  strikethrough: 's',
  underline: 'u',
  heading: 'strong',
  highlighted: 'mark',
  quote: 'q',
};

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** Plain text with its markup as HTML (the same cuts as the web chat's). */
function markedHtml(text: string, markup: MarkupElement[]): string {
  const cuts = [...new Set([0, text.length, ...markup.flatMap((m) => [m.from, m.from + m.length])])]
    .filter((c) => c >= 0 && c <= text.length)
    .sort((a, b) => a - b);
  let html = '';
  for (let i = 0; i < cuts.length - 1; i++) {
    const [from, to] = [cuts[i]!, cuts[i + 1]!];
    let piece = escapeHtml(text.slice(from, to));
    for (const m of markup) {
      if (m.from > from || m.from + m.length < to) continue;
      if (m.type === 'link' && /^(https?:|mailto:|tel:)/i.test(m.url ?? ''))
        piece = `<a href="${escapeHtml(m.url!)}" rel="noopener">${piece}</a>`;
      else if (TAGS[m.type]) piece = `<${TAGS[m.type]}>${piece}</${TAGS[m.type]}>`;
    }
    html += piece;
  }
  return html.replaceAll('\n', '<br>');
}

const anchor = (flow: string, step: string) => `${encodeURIComponent(flow)}--${encodeURIComponent(step)}`;

function stepHtml(board: Storyboard, step: StoryboardStep): string {
  const frames = step.frames
    .map((frame) => {
      const body = frame.error
        ? `<p class="error">${escapeHtml(frame.error)}</p>`
        : frame.messages.length === 0
          ? '<p class="quiet">(sends nothing on entry)</p>'
          : frame.messages
              .map(
                (m) =>
                  `<div class="bubble">${m.media.map((t) => `<div class="media">${escapeHtml(t)}</div>`).join('')}` +
                  `<div class="text">${markedHtml(m.text, m.markup)}</div>` +
                  m.buttons
                    .map(
                      (row) =>
                        `<div class="row">${row
                          .map(
                            (b) =>
                              `<span class="button ${escapeHtml(b.type)}">${escapeHtml(b.text)}${b.url ? ' ↗' : ''}</span>`,
                          )
                          .join('')}</div>`,
                    )
                    .join('') +
                  '</div>',
              )
              .join('');
      return `<section class="frame" data-locale="${escapeHtml(frame.locale)}"><h4>${escapeHtml(frame.locale)}</h4>${body}</section>`;
    })
    .join('');
  const next = step.next
    .map(
      (n) =>
        `<li><a href="#${anchor(board.flow, n.to)}">→ ${escapeHtml(n.to)}</a>${n.label ? ` <span class="on">${escapeHtml(n.label)}</span>` : ''}</li>`,
    )
    .join('');
  const k = step.kind;
  const kind = k
    ? `<span class="kind ${escapeHtml(k.shape)}" title="step of type ${escapeHtml(k.type)}">${escapeHtml(k.label)}</span>`
    : '';
  const tags = `${kind}${step.start ? '<span class="tag">start</span>' : ''}${step.final ? '<span class="tag end">end</span>' : ''}`;
  return (
    `<article class="step" id="${anchor(board.flow, step.id)}" data-step="${escapeHtml(step.id)}"${k ? ` data-kind="${escapeHtml(k.type)}"` : ''}>` +
    `<h3>${escapeHtml(step.id)} ${tags}</h3><div class="frames">${frames}</div>` +
    (next ? `<ul class="next">${next}</ul>` : '<p class="quiet">no way out: the dialog ends here</p>') +
    '</article>'
  );
}

/**
 * Boards as one self-contained HTML page: no script, no outside resource; links jump between steps.
 * `downloadHref` adds a "download this page" link to the header (the served page, not the file itself).
 */
export function storyboardHtml(
  boards: Storyboard[],
  title = 'botflow storyboard',
  options: { downloadHref?: string } = {},
): string {
  const body = boards
    .map((board) => {
      const anywhere = board.anywhere
        .map(
          (a) =>
            `<li><a href="#${anchor(board.flow, a.to)}">→ ${escapeHtml(a.to)}</a> <span class="on">${escapeHtml(a.label)}</span></li>`,
        )
        .join('');
      return (
        `<section class="flow" id="${encodeURIComponent(board.flow)}"><h2>${escapeHtml(board.flow)} ` +
        `<span class="quiet">version ${escapeHtml(board.version)} · ${board.steps.length} steps · ${board.locales.map(escapeHtml).join(', ')}</span></h2>` +
        (anywhere ? `<p class="quiet">From any step:</p><ul class="next anywhere">${anywhere}</ul>` : '') +
        board.steps.map((step) => stepHtml(board, step)).join('') +
        '</section>'
      );
    })
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f4f5fa;color:#1c1d27}
header{background:#fff;border-bottom:1px solid #e3e5ee;padding:14px 24px;position:sticky;top:0;z-index:1}
header{display:flex;align-items:center;gap:16px}
header h1{font-size:18px;margin:0;flex:1}
.download{color:#fff;background:#5b57e8;border-radius:8px;padding:6px 12px;text-decoration:none;font-size:14px}
main{padding:8px 24px 48px;max-width:1400px}
h2{font-size:20px;margin:28px 0 8px}
.quiet{color:#6b6f85;font-weight:normal;font-size:13px}
.step{background:#fff;border:1px solid #e3e5ee;border-radius:12px;padding:12px 16px;margin:14px 0;scroll-margin-top:70px}
.step:target{outline:3px solid #5b57e8}
.step h3{margin:0 0 8px;font:600 15px ui-monospace,monospace}
.tag{font:600 11px system-ui;background:#e7f7ee;color:#157347;border-radius:8px;padding:2px 8px;margin-left:6px}
.tag.end{background:#eceaff;color:#4a45c9}
.kind{font:600 11px system-ui;background:#eef0f6;color:#4b4f63;padding:2px 9px;margin-left:6px;border-radius:3px}
.kind.stadium{border-radius:9px}
.kind.hexagon{clip-path:polygon(6px 0,calc(100% - 6px) 0,100% 50%,calc(100% - 6px) 100%,6px 100%,0 50%)}
.kind.parallelogram{clip-path:polygon(5px 0,100% 0,calc(100% - 5px) 100%,0 100%)}
.kind.subroutine{border-left:3px double #9aa0b2;border-right:3px double #9aa0b2}
.frames{display:grid;grid-template-columns:repeat(auto-fill,minmax(280px,1fr));gap:12px}
.frame h4{margin:0 0 6px;font:600 12px system-ui;color:#6b6f85;text-transform:uppercase}
.bubble{background:#f7f7fb;border:1px solid #e3e5ee;border-radius:12px;padding:8px 10px;margin-bottom:6px;max-width:360px}
.text{white-space:normal;overflow-wrap:anywhere}
.media{font-size:12px;color:#6b6f85;border:1px dashed #c9ccdb;border-radius:8px;padding:14px;margin-bottom:6px;text-align:center}
.row{display:flex;gap:6px;margin-top:6px}
.button{flex:1;text-align:center;border:1px solid #c9c7f5;color:#4a45c9;background:#fff;border-radius:8px;padding:5px 6px;font-size:13px}
.next{margin:10px 0 0;padding-left:18px;font-size:14px}
.next a{color:#4a45c9;text-decoration:none;font-family:ui-monospace,monospace}
.on{color:#6b6f85;font-size:13px}
.error{color:#b42318}
</style></head>
<body><header><h1>${escapeHtml(title)}</h1>${
    options.downloadHref
      ? `<a class="download" href="${escapeHtml(options.downloadHref)}" download>Download as HTML</a>`
      : ''
  }</header><main>${body}</main></body></html>
`;
}
