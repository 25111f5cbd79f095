// The side panel's Graph section: the flow's graph (graph.js) in a box that zooms (−, +, fit, or
// Ctrl/⌘ + wheel) and pans (drag, or scroll), what is reachable from any step (global commands), links
// to the storyboard, the funnel and the running versions, "copy as Mermaid", and a step's lines when a
// step is clicked.
import { h } from './dom.js';
import { display, drawGraph } from './graph.js';
import { stepForm } from './step-form.js';

const MIN_SCALE = 0.25;
const MAX_SCALE = 3;

/** What a note says is reachable from any step: `reachable by /cancel from any step` → `/cancel`. */
function fromAnyStep(graph) {
  const out = [];
  for (const n of graph.nodes) {
    for (const part of (n.note ?? '').split('; ')) {
      const m = /^reachable by (.+) from any step$/.exec(part);
      if (m) out.push({ by: m[1], to: n.id });
    }
  }
  return out;
}

/** The graph in a zoomable, pannable box; `view` ({scale, left, top}, scale 0 = fit) outlives redraws. */
function zoomableGraph(graphEl, view) {
  const natural = Number(graphEl.getAttribute('width'));
  const level = h('span', { class: 'zoom-level', 'aria-live': 'polite' });
  const box = h('div', { class: 'graph-box' }, graphEl);
  const apply = () => {
    const zoomed = view.scale > 0;
    box.classList.toggle('zoomed', zoomed);
    graphEl.style.maxWidth = zoomed ? 'none' : '';
    graphEl.setAttribute('width', String(zoomed ? Math.round(natural * view.scale) : natural));
    // At "fit" the scale depends on the box's width: known once the box is in the page.
    const scale = zoomed ? view.scale : box.isConnected ? fitted() : undefined;
    level.textContent = scale === undefined ? '' : `${Math.round(scale * 100)}%`;
    fitButton.setAttribute('aria-pressed', String(!zoomed));
  };
  // The scale "fit" shows: the whole graph in the box's width, never above its natural size.
  const fitted = () => Math.min(1, Math.max(box.clientWidth - 14, 1) / natural);
  const zoom = (factor, at) => {
    const before = view.scale || fitted();
    const next = Math.min(MAX_SCALE, Math.max(MIN_SCALE, before * factor));
    const rect = box.getBoundingClientRect();
    // The point under the pointer (or the box's centre) stays where it is.
    const px = at ? at.x - rect.left : box.clientWidth / 2;
    const py = at ? at.y - rect.top : box.clientHeight / 2;
    const x = (box.scrollLeft + px) / before;
    const y = (box.scrollTop + py) / before;
    view.scale = next;
    apply();
    box.scrollLeft = view.left = x * next - px;
    box.scrollTop = view.top = y * next - py;
  };
  const fit = () => {
    Object.assign(view, { scale: 0, left: 0, top: 0 });
    apply();
  };
  box.addEventListener(
    'wheel',
    (event) => {
      if (!event.ctrlKey && !event.metaKey) return;
      event.preventDefault();
      zoom(event.deltaY < 0 ? 1.15 : 1 / 1.15, { x: event.clientX, y: event.clientY });
    },
    { passive: false },
  );
  box.addEventListener('scroll', () => {
    view.left = box.scrollLeft;
    view.top = box.scrollTop;
  });
  // Drag the background to pan (a press on a step stays a click on the step).
  let drag;
  box.addEventListener('pointerdown', (event) => {
    if (!box.classList.contains('zoomed') || event.button !== 0 || event.target.closest?.('g.node')) return;
    drag = { x: event.clientX, y: event.clientY, left: box.scrollLeft, top: box.scrollTop };
    box.setPointerCapture(event.pointerId);
    box.classList.add('panning');
  });
  box.addEventListener('pointermove', (event) => {
    if (!drag) return;
    box.scrollLeft = drag.left - (event.clientX - drag.x);
    box.scrollTop = drag.top - (event.clientY - drag.y);
  });
  const release = () => {
    drag = undefined;
    box.classList.remove('panning');
  };
  box.addEventListener('pointerup', release);
  box.addEventListener('pointercancel', release);
  const button = (label, text, onclick) =>
    h('button', { type: 'button', class: 'zoom-btn', 'aria-label': label, title: label, onclick }, text);
  const fitButton = button('Fit the graph', 'fit', fit);
  const controls = h(
    'div',
    { class: 'zoom', role: 'group', 'aria-label': 'Zoom' },
    button('Zoom out', '−', () => zoom(1 / 1.25)),
    level,
    button('Zoom in', '+', () => zoom(1.25)),
    fitButton,
  );
  apply();
  // Back where it was before the redraw, once the box is in the page.
  requestAnimationFrame(() => {
    apply();
    box.scrollLeft = view.left;
    box.scrollTop = view.top;
  });
  return h('div', { class: 'graph-frame' }, controls, box);
}

/** The links under the graph: edit the file (beside the chats), the storyboard, the funnel, the versions. */
function flowLinks(panel, flow, current) {
  const link = (text, href, title) =>
    h('a', { class: 'link-btn', href, target: '_blank', rel: 'noopener', title }, text);
  const id = encodeURIComponent(flow.id);
  const storyboard = link(
    'storyboard',
    `/_inspector/storyboard?flow=${id}#${id}--${encodeURIComponent(current ?? '')}`,
    'Every step as the person sees it, in every locale, on one page',
  );
  const funnel = link(
    'funnel',
    `/_inspector/funnel?flow=${id}`,
    'How far conversations got: reached, stopped, retries and time per step',
  );
  const versions = link(
    'versions',
    '/_inspector/plan',
    'Running conversations by flow version: which stay on an older one, move, or are stranded',
  );
  // The flow's file in the editor beside the chats (a selected step's form is under its lines).
  const edit = h(
    'button',
    {
      type: 'button',
      class: 'link-btn',
      title: 'Edit the flow file beside the chat',
      onclick: () => panel.onEdit?.(flow.id),
    },
    'edit file',
  );
  return [edit, storyboard, funnel, versions];
}

/** How long "copied ✓" stays on the button. */
const COPIED_FOR_MS = 3000;

/**
 * The Graph section's parts for `flow` with `current` highlighted. `panel` keeps what outlives its
 * redraws: `copiedAt`, `sourceOf` (the step whose lines show), `graphViews` (zoom and scroll per flow).
 */
export function graphParts(panel, flow, current) {
  // The answer outlives the panel's redraws (a step event may redraw it right after the click).
  const copied = Date.now() - (panel.copiedAt ?? 0) < COPIED_FOR_MS;
  const copy = h(
    'button',
    {
      type: 'button',
      class: 'link-btn',
      onclick: async (event) => {
        const button = event.currentTarget;
        try {
          await navigator.clipboard.writeText(flow.mermaid);
          panel.copiedAt = Date.now();
          button.textContent = 'copied ✓';
          // A redraw already under way may replace this button with one drawn before the click:
          // redraw once more now (it reads copiedAt), and again when the answer is due to go.
          panel.refresh();
          setTimeout(() => panel.refresh(), COPIED_FOR_MS + 100);
        } catch {
          button.textContent = 'copy failed: botflow graph prints the same text';
        }
      },
    },
    copied ? 'copied ✓' : 'copy as Mermaid',
  );
  // A click on a step (or Enter on it) shows where the step is written, below the graph.
  const graphEl = drawGraph(flow.graph, current);
  for (const node of graphEl.querySelectorAll('g.node')) {
    const step = node.getAttribute('data-step');
    if (!flow.steps?.[step]) continue;
    node.setAttribute('tabindex', '0');
    node.setAttribute('role', 'button');
    node.setAttribute('aria-label', `Step ${step}: show its lines`);
    const show = () => {
      panel.sourceOf = panel.sourceOf?.step === step ? undefined : { flow: flow.id, step };
      panel.refresh();
    };
    node.addEventListener('click', show);
    node.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        show();
      }
    });
  }
  panel.graphViews ??= new Map();
  if (!panel.graphViews.has(flow.id)) panel.graphViews.set(flow.id, { scale: 0, left: 0, top: 0 });
  const anywhere = fromAnyStep(flow.graph);
  const commands = anywhere.length
    ? h(
        'p',
        { class: 'any-step small', 'aria-label': 'From any step' },
        h('span', { class: 'muted' }, 'From any step: '),
        anywhere.flatMap((a, i) => [i > 0 ? ' · ' : null, h('code', {}, a.by), ` → ${display(a.to)}`]),
      )
    : null;
  const shown = panel.sourceOf?.flow === flow.id ? flow.steps?.[panel.sourceOf.step] : undefined;
  const source = shown
    ? h(
        'figure',
        { class: 'step-source', 'aria-label': `Lines of step ${panel.sourceOf.step}` },
        h('figcaption', {}, `${shown.file}:${shown.line}`),
        h('pre', {}, shown.text),
      )
    : null;
  return [
    zoomableGraph(graphEl, panel.graphViews.get(flow.id)),
    commands,
    h('div', { class: 'graph-actions' }, ...flowLinks(panel, flow, current), copy),
    source,
    shown ? stepForm(panel, flow.id, panel.sourceOf.step) : null,
  ];
}
