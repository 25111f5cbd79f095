/**
 * Text formatting as the platform applies it: a message sent with `format: html` or `format: markdown`
 * is stored as plain text plus `markup` elements (`{type, from, length}`, positions in the plain text),
 * the markers gone. The tags and syntax are the OpenAPI description's ("Text formatting"); other HTML
 * tags are stripped, their text kept. A link to `max://user/<id>` is a user mention.
 */

/** One markup element, as the platform returns it in a message body. */
export interface MarkupElement {
  type:
    | 'strong'
    | 'emphasized'
    | 'monospaced'
    | 'link'
    | 'strikethrough'
    | 'underline'
    | 'user_mention'
    | 'heading'
    | 'highlighted'
    | 'quote';
  from: number;
  length: number;
  url?: string;
  user_id?: number;
  user_link?: string;
}

const HTML_TAGS: Record<string, MarkupElement['type']> = {
  b: 'strong',
  strong: 'strong',
  i: 'emphasized',
  em: 'emphasized',
  s: 'strikethrough',
  del: 'strikethrough',
  u: 'underline',
  ins: 'underline',
  code: 'monospaced',
  pre: 'monospaced',
  mark: 'highlighted',
  h1: 'heading',
  blockquote: 'quote',
};

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** A link's element: a user mention for `max://user/<id>`, else a link. */
function linkElement(url: string, from: number, length: number): MarkupElement {
  const user = /^max:\/\/user\/(\d+)$/.exec(url);
  return user
    ? { type: 'user_mention', from, length, user_id: Number(user[1]) }
    : { type: 'link', from, length, url };
}

function fromHtml(source: string): { text: string; markup: MarkupElement[] } {
  let text = '';
  const markup: MarkupElement[] = [];
  const open: { tag: string; from: number; url?: string }[] = [];
  const re = /<(\/?)([a-z][a-z0-9]*)\b([^>]*)>|([^<]+|<)/gi;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    if (m[4] !== undefined) {
      text += decodeEntities(m[4]);
      continue;
    }
    const closing = m[1] === '/';
    const tag = m[2]!.toLowerCase();
    if (tag === 'br') {
      text += '\n';
      continue;
    }
    if (!closing) {
      const href = /\bhref\s*=\s*("([^"]*)"|'([^']*)')/i.exec(m[3] ?? '');
      open.push({
        tag,
        from: text.length,
        ...(href ? { url: decodeEntities(href[2] ?? href[3] ?? '') } : {}),
      });
      continue;
    }
    const at = open.map((o) => o.tag).lastIndexOf(tag);
    if (at < 0) continue; // a closing tag nobody opened: dropped
    const [o] = open.splice(at, 1);
    const length = text.length - o!.from;
    if (length === 0) continue;
    if (tag === 'a' && o!.url) markup.push(linkElement(o!.url, o!.from, length));
    else if (HTML_TAGS[tag]) markup.push({ type: HTML_TAGS[tag]!, from: o!.from, length });
  }
  return { text, markup: markup.sort((a, b) => a.from - b.from) };
}

/** Markdown markers by their opening text, longest first so that `**` wins over `*`. */
const MD_MARKERS: [string, MarkupElement['type']][] = [
  ['```', 'monospaced'],
  ['**', 'strong'],
  ['__', 'strong'],
  ['~~', 'strikethrough'],
  ['++', 'underline'],
  ['^^', 'highlighted'],
  ['*', 'emphasized'],
  ['_', 'emphasized'],
  ['`', 'monospaced'],
];

function fromMarkdown(source: string): { text: string; markup: MarkupElement[] } {
  const markup: MarkupElement[] = [];
  const parse = (input: string, base: number): string => {
    let out = '';
    let i = 0;
    while (i < input.length) {
      const rest = input.slice(i);
      const link = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(rest);
      if (link) {
        const inner = parse(link[1]!, base + out.length);
        markup.push(linkElement(link[2]!, base + out.length, inner.length));
        out += inner;
        i += link[0].length;
        continue;
      }
      const marker = MD_MARKERS.find(([m]) => rest.startsWith(m));
      const end = marker ? input.indexOf(marker[0], i + marker[0].length) : -1;
      if (marker && end > i + marker[0].length) {
        const body = input.slice(i + marker[0].length, end);
        const inner = marker[1] === 'monospaced' ? body : parse(body, base + out.length);
        markup.push({ type: marker[1], from: base + out.length, length: inner.length });
        out += inner;
        i = end + marker[0].length;
        continue;
      }
      out += input[i];
      i++;
    }
    return out;
  };
  // `# Header` lines are headings; the rest is inline syntax.
  const lines = source.split('\n');
  let text = '';
  lines.forEach((line, n) => {
    if (n > 0) text += '\n';
    const heading = /^#\s+(.*)$/.exec(line);
    const from = text.length;
    const inner = parse(heading ? heading[1]! : line, from);
    if (heading && inner.length > 0) markup.push({ type: 'heading', from, length: inner.length });
    text += inner;
  });
  return { text, markup: markup.sort((a, b) => a.from - b.from) };
}

/**
 * The plain text and markup of a message sent with `format`; `isUsername` says which @usernames belong to
 * people the platform knows, so `@name` in any message is a user mention.
 */
export function formatMessage(
  source: string,
  format: string | undefined,
  isUsername: (name: string) => boolean = () => false,
): { text: string; markup: MarkupElement[] } {
  const formatted =
    format === 'html'
      ? fromHtml(source)
      : format === 'markdown'
        ? fromMarkdown(source)
        : { text: source, markup: [] };
  const { text } = formatted;
  const markup = [...formatted.markup];
  for (const m of text.matchAll(/(^|[^\w@])@([A-Za-z][\w]{2,})/g)) {
    const from = m.index! + m[1]!.length;
    if (isUsername(m[2]!) && !markup.some((e) => e.type === 'user_mention' && e.from === from))
      markup.push({ type: 'user_mention', from, length: m[2]!.length + 1, user_link: `@${m[2]}` });
  }
  return { text, markup: markup.sort((a, b) => a.from - b.from) };
}
