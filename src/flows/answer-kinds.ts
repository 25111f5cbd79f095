/**
 * What an answer holds for the kinds of input read from its text or its attachments alone (inputs.ts reads
 * choices, dates and times): a number, a URL, an email, a phone (typed or a shared contact's), a contact, a
 * location, a photo or a file.
 */
import type { InputKind } from './kinds/fields.ts';

/** An event as an input step reads it. */
export type Answer = {
  text?: string;
  attachments: Record<string, unknown>[];
  button?: string;
  command?: boolean;
};

/**
 * `local@domain.tld`: one @, no whitespace, a dot in the domain followed by at least two characters
 * (what `^[^\s@]+@[^\s@]+\.[^\s@]{2,}$` accepts, up to 320 characters).
 * Checked in one pass, without a regular expression (the former pattern backtracked quadratically).
 */
export function isEmail(text: string): boolean {
  if (text.length > 320) return false; // RFC 5321's limit
  const at = text.indexOf('@');
  if (at < 1 || at !== text.lastIndexOf('@')) return false;
  if (/\s/u.test(text)) return false;
  // A dot after the domain's first character, with two or more characters after it.
  const domain = text.slice(at + 1);
  const dot = domain.indexOf('.', 1);
  return dot > 0 && domain.length - dot - 1 >= 2;
}

/** The phone number of a shared contact's vCard: the first TEL line's value, spaces and brackets removed. */
export function phoneFromVcf(vcf: unknown): string | undefined {
  if (typeof vcf !== 'string') return undefined;
  // Line by line: the first TEL property's value, its leading phone characters (linear in the card's size).
  for (const line of vcf.split(/\r?\n/)) {
    if (line.slice(0, 3).toUpperCase() !== 'TEL') continue;
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const value = /^[+\d][\d\s()-]*/.exec(line.slice(colon + 1))?.[0];
    if (value && value.length > 1) return value.replace(/[\s()-]/g, '');
  }
  return undefined;
}

/** A number: digits with one optional decimal point or comma. */
export function readNumber(text: string | undefined): number | undefined {
  if (!text || !/^[-+]?\d+([.,]\d+)?$/.test(text)) return undefined;
  return Number(text.replace(',', '.'));
}

/** An http(s) URL with a dotted host name; "example.com" is read as https. */
export function readUrl(text: string | undefined): string | undefined {
  if (!text || /\s/.test(text)) return undefined;
  try {
    const u = new URL(/^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname.includes('.')
      ? u.href
      : undefined;
  } catch {
    return undefined;
  }
}

/** A phone number, typed or from a shared contact, as + and 7 to 15 digits. */
export function readPhone(text: string | undefined, att: Answer['attachments']): string | undefined {
  const contact = att.find((x) => x.type === 'contact') as { payload?: { vcf_info?: string } } | undefined;
  const raw = contact ? phoneFromVcf(contact.payload?.vcf_info) : text;
  if (!raw || !/^\+?[\d\s()-]{7,20}$/.test(raw)) return undefined;
  const digits = raw.replace(/\D/g, '');
  return digits.length >= 7 && digits.length <= 15 ? `+${digits}` : undefined;
}

/** A shared contact: its name, phone and platform user id (each null when the card lacks it). */
export function readContact(att: Answer['attachments']) {
  const c = att.find((x) => x.type === 'contact') as
    | {
        payload?: {
          vcf_info?: string;
          max_info?: { user_id?: number; name?: string; first_name?: string };
        };
      }
    | undefined;
  if (!c) return undefined;
  const info = c.payload?.max_info;
  const name = info?.first_name ?? info?.name ?? /FN:(.+)/.exec(c.payload?.vcf_info ?? '')?.[1]?.trim();
  return {
    name: name ?? null,
    phone: phoneFromVcf(c.payload?.vcf_info) ?? null,
    user_id: info?.user_id ?? null,
  };
}

/** A shared location. */
export function readLocation(att: Answer['attachments']) {
  const l = att.find((x) => x.type === 'location') as { latitude: number; longitude: number } | undefined;
  return l ? { latitude: l.latitude, longitude: l.longitude } : undefined;
}

/** A sent photo or file: its url or token, and a file's name and size. */
export function readFile(kind: Extract<InputKind, 'photo' | 'file'>, att: Answer['attachments']) {
  const want = kind === 'photo' ? 'image' : 'file';
  const f = att.find((x) => x.type === want) as
    | { payload?: { url?: string; token?: string }; filename?: string; size?: number }
    | undefined;
  if (!f) return undefined;
  return {
    kind,
    url: f.payload?.url ?? null,
    token: f.payload?.token ?? null,
    ...(kind === 'file' ? { filename: f.filename ?? null, size: f.size ?? null } : {}),
  };
}
