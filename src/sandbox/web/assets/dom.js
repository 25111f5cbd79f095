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

const ALLOWED = new Set(['B', 'STRONG', 'I', 'EM', 'U', 'INS', 'S', 'DEL', 'CODE', 'PRE', 'A', 'BR']);

/**
 * The bot's `format: html` text as DOM, keeping only the platform's formatting tags (links get a safe
 * href); anything else becomes its text. Parsed in an inert document: no script ever runs.
 */
export function formattedText(text) {
  const doc = new DOMParser().parseFromString(`<body>${text}</body>`, 'text/html');
  const copy = (node) => {
    if (node.nodeType === Node.TEXT_NODE) return document.createTextNode(node.textContent ?? '');
    if (node.nodeType !== Node.ELEMENT_NODE) return null;
    const kids = [...node.childNodes].map(copy).filter(Boolean);
    if (!ALLOWED.has(node.tagName)) return kids.length === 1 ? kids[0] : h('span', {}, kids);
    const href = node.getAttribute('href') ?? '';
    if (node.tagName === 'A') {
      return h(
        'a',
        { href: /^(https?:|mailto:|tel:)/i.test(href) ? href : undefined, target: '_blank', rel: 'noopener' },
        kids,
      );
    }
    return h(node.tagName.toLowerCase(), {}, kids);
  };
  return [...doc.body.childNodes].map(copy).filter(Boolean);
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
