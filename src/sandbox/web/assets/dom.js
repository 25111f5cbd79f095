// Tiny DOM helpers: build elements from data, never from HTML strings (text stays text).

/** Creates an element: `h('button', { class: 'x', onclick }, 'Label', child)`. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  el.append(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
  return el;
}

/** Creates an SVG element. */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) el.setAttribute(name, String(value));
  }
  el.append(...children.flat().filter((c) => c !== undefined && c !== null));
  return el;
}

/**
 * The bot's `format: html` text as DOM, keeping only the platform's formatting tags (links get a safe
 * href); anything else becomes its text. Parsed in an inert document: no script ever runs.
 */
const MARKUP_TAGS = {
  strong: 'strong',
  emphasized: 'em',
  monospaced: 'code',
  strikethrough: 's',
  underline: 'u',
  highlighted: 'mark',
  heading: 'strong',
  quote: 'q',
};

/**
 * A message text with its markup (`{type, from, length}` elements, as the platform returns them) as DOM
 * nodes: the text is never parsed as HTML, so a bot's literal "<b>" shows as written.
 */
export function markedText(text, markup = []) {
  const cuts = new Set([0, text.length]);
  for (const m of markup) {
    cuts.add(Math.max(0, m.from));
    cuts.add(Math.min(text.length, m.from + m.length));
  }
  const points = [...cuts].sort((a, b) => a - b);
  const nodes = [];
  for (let i = 0; i < points.length - 1; i++) {
    const [from, to] = [points[i], points[i + 1]];
    if (to <= from) continue;
    let node = document.createTextNode(text.slice(from, to));
    for (const m of markup) {
      if (m.from > from || m.from + m.length < to) continue;
      if (m.type === 'link')
        node = h(
          'a',
          {
            href: /^(https?:|mailto:|tel:)/i.test(m.url ?? '') ? m.url : undefined,
            target: '_blank',
            rel: 'noopener',
          },
          [node],
        );
      else if (m.type === 'user_mention')
        node = h('span', { class: 'mention', title: m.user_link ?? `user ${m.user_id}` }, [node]);
      else if (MARKUP_TAGS[m.type]) node = h(MARKUP_TAGS[m.type], {}, [node]);
    }
    nodes.push(node);
  }
  return nodes;
}

/** "just now", "5 s ago", "in 59 min": short relative times for people. */
export function relativeTime(ms, now = Date.now()) {
  const delta = Math.round((ms - now) / 1000);
  const abs = Math.abs(delta);
  const amount =
    abs < 60
      ? `${abs} s`
      : abs < 3600
        ? `${Math.round(abs / 60)} min`
        : abs < 86_400
          ? `${Math.round(abs / 3600)} h`
          : `${Math.round(abs / 86_400)} d`;
  if (abs < 2) return 'just now';
  return delta > 0 ? `in ${amount}` : `${amount} ago`;
}

/** Clock time of a timestamp, e.g. 14:03:27. */
export function clock(ms) {
  return new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
}

/** A person's initials and a stable hue for their avatar. */
export function avatar(user, size = 'md') {
  const name = user.name || user.first_name || `#${user.user_id}`;
  const initials = name
    .split(/\s+/)
    .map((w) => w[0] ?? '')
    .join('')
    .slice(0, 2)
    .toUpperCase();
  const hue = (user.user_id * 47) % 360;
  return h(
    'span',
    { class: `avatar avatar-${size}`, style: `--hue: ${hue}`, 'aria-hidden': 'true' },
    initials,
  );
}

/** One titled section of the side panel (its title names it for screen readers and tests). */
export function panelSection(title, ...body) {
  return h('section', { class: 'panel-section', 'aria-label': title }, h('h3', {}, title), body);
}
