/**
 * Texts of a flow: literal strings with {{variables}}, or message ids looked up in per-locale Fluent
 * catalogs (flows/locales/<locale>.ftl). Variable values are escaped for the message format, so a
 * person's name can never inject markup.
 */
import { FluentBundle, FluentDateTime, FluentResource, type FluentVariable } from '@fluent/bundle';
import { ExpressionError } from './expressions.ts';
import { computedNames, readVar } from './vars.ts';

export type TextFormat = 'html' | 'markdown';

/** One loaded locale catalog. */
export interface Catalog {
  locale: string;
  file: string;
  bundle: FluentBundle;
  /** Message ids with the 1-based line they are defined on. */
  ids: Map<string, number>;
  /** Lines where an entry starts that Fluent could not parse (it skips them). */
  broken: number[];
  /** The catalog's text (kept so a flow version's source can carry it; see flow-source.ts). */
  text?: string;
}

/** Loads a Fluent catalog from its text. */
export function loadCatalog(locale: string, file: string, source: string): Catalog {
  const bundle = new FluentBundle(locale, { useIsolating: false });
  bundle.addResource(new FluentResource(source));
  const ids = new Map<string, number>();
  const broken: number[] = [];
  source.split('\n').forEach((line, i) => {
    const m = /^(-?[A-Za-z][\w-]*)\s*=/.exec(line);
    if (m) ids.set(m[1]!, i + 1);
    // Fluent skips what it cannot parse; find those entries so they are reported instead of lost.
    if (m && !m[1]!.startsWith('-') && !bundle.hasMessage(m[1]!)) broken.push(i + 1);
    else if (!m && /^[^\s#]/.test(line)) broken.push(i + 1);
  });
  return { locale, file, bundle, ids, broken, text: source };
}

/** Escapes a variable's value for the message format. */
export function escapeFor(format: TextFormat, value: string): string {
  if (format === 'html') {
    return value.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  }
  return value.replace(/[\\*_~`[\]()#+\-!|>]/g, (c) => `\\${c}`);
}

function display(value: unknown): string {
  if (value === undefined || value === null) return '';
  // A list (a multi_choice answer) reads as "wifi, parking".
  if (Array.isArray(value)) return value.map(display).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** `{{ name }}` / `{{ contact.phone }}` in a literal text, escaped. */
export function interpolate(
  template: string,
  vars: Readonly<Record<string, unknown>>,
  format: TextFormat,
): string {
  return template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, path: string) =>
    escapeFor(format, display(readVar(vars, path))),
  );
}

/** `{{ name }}` in a value that is not a message (a clipboard text, a mini-app payload): filled in, not escaped. */
export function fillTemplate(template: string, vars: Readonly<Record<string, unknown>>): string {
  return template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, path: string) => display(readVar(vars, path)));
}

/** Variable names a literal text uses. */
export function templateVars(template: string): string[] {
  return [...template.matchAll(/\{\{\s*([\w.]+)\s*\}\}/g)].map((m) => m[1]!);
}

/**
 * A saved date (`2026-03-31`) as a Fluent argument: shown as saved in `{ $day }`, and formatted for the
 * person's locale by `{ DATETIME($day, dateStyle: "long") }` (at UTC, so the day never shifts).
 */
class SavedDate extends FluentDateTime {
  constructor(
    private readonly shown: string,
    iso: string,
  ) {
    super(Date.parse(`${iso}T00:00:00Z`), { timeZone: 'UTC' });
  }
  override toString(): string {
    return this.shown;
  }
}

/** One value as a Fluent argument: numbers stay numbers, saved dates format as dates, the rest is text. */
function fluentValue(v: unknown, format: TextFormat): FluentVariable | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)))
    return new SavedDate(escapeFor(format, v), v);
  if (v !== undefined && v !== null) return escapeFor(format, display(v));
  return undefined;
}

/** Flattens variables into Fluent arguments: `contact.phone` becomes `$contact_phone`. */
function fluentArgs(
  vars: Readonly<Record<string, unknown>>,
  format: TextFormat,
): Record<string, FluentVariable> {
  const out: Record<string, FluentVariable> = {};
  const walk = (prefix: string, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, x] of Object.entries(v)) walk(prefix ? `${prefix}_${k}` : k, x);
    } else {
      const arg = fluentValue(v, format);
      if (arg !== undefined) out[prefix] = arg;
    }
  };
  walk('', vars);
  // Computed values are worked out only when a message reads them (Fluent asks for its arguments by name).
  for (const name of computedNames()) {
    if (Object.hasOwn(out, name) || Object.hasOwn(vars, name)) continue;
    Object.defineProperty(out, name, {
      enumerable: true,
      configurable: true,
      get: () => fluentValue(readVar(vars, name), format),
    });
  }
  return out;
}

/** Picks the catalog locale for a person's locale: exact, then language only, then the default. */
export function resolveLocale(
  wanted: string | undefined,
  available: readonly string[],
  fallback: string,
): string {
  if (!wanted) return fallback;
  const lower = wanted.toLowerCase();
  const exact = available.find((l) => l.toLowerCase() === lower);
  if (exact) return exact;
  const lang = lower.split(/[-_]/)[0];
  return available.find((l) => l.toLowerCase().split(/[-_]/)[0] === lang) ?? fallback;
}

/** Renders one text of a flow for a locale. */
export interface TextRenderer {
  render(text: string, vars: Readonly<Record<string, unknown>>, locale: string): string;
  /** The locale the flow's texts resolve to for a person's locale. */
  locale(wanted: string | undefined): string;
  /** True when the flow's catalog for `locale` (or the default one) defines message `id`. */
  has?(id: string, locale: string): boolean;
  /** True when `text` renders the same in `locale` whatever the variables (no variable, no function). */
  constant?(text: string, locale: string): boolean;
}

/** A renderer for a flow: literal texts when `i18n` is absent, Fluent messages otherwise. */
export function textRenderer(
  format: TextFormat,
  i18n: { default_locale: string; catalogs: Map<string, Catalog> } | undefined,
): TextRenderer {
  if (!i18n) {
    return {
      render: (t, vars) => interpolate(t, vars, format),
      locale: (w) => w ?? 'en',
      constant: (t) => templateVars(t).length === 0,
    };
  }
  const available = [...i18n.catalogs.keys()];
  /** The catalog a locale reads, and the message `id` in it (else in the default catalog). */
  const lookup = (id: string, locale: string) => {
    const bundle =
      i18n.catalogs.get(resolveLocale(locale, available, i18n.default_locale))?.bundle ??
      i18n.catalogs.get(i18n.default_locale)?.bundle;
    const message = bundle?.getMessage(id) ?? i18n.catalogs.get(i18n.default_locale)?.bundle.getMessage(id);
    return { bundle, message };
  };
  return {
    locale: (w) => resolveLocale(w, available, i18n.default_locale),
    has: (id, locale) =>
      !!i18n.catalogs.get(resolveLocale(locale, available, i18n.default_locale))?.bundle.hasMessage(id),
    // Fluent keeps a message without placeables as a plain string; a missing one renders as its id.
    constant(id, locale) {
      const { bundle, message } = lookup(id, locale);
      return !message?.value || !bundle || typeof message.value === 'string';
    },
    render(id, vars, locale) {
      const { bundle, message } = lookup(id, locale);
      if (!message?.value || !bundle) return id;
      const errors: Error[] = [];
      const text = bundle.formatPattern(message.value, fluentArgs(vars, format), errors);
      // Fluent's own complaints (a missing variable) leave a visible {$name}; a computed value that
      // failed is the flow's failure and must not be hidden in the text.
      const failed = errors.find((e) => e instanceof ExpressionError);
      if (failed) throw failed;
      return text;
    },
  };
}
