/**
 * The text and keyboard checks of the linter: i18n message ids in every locale (or literal texts and their
 * variables), and the platform's limits per locale, with the API client's own limit checks.
 */
import { relative, resolve } from 'node:path';
import { charLength, checkKeyboard, checkText } from '../client/limits.ts';
import { platformButton } from './buttons.ts';
import type { TextRef } from './flow-walk.ts';
import { kindOf } from './kinds/registry.ts';
import type { LintInput, Report } from './lint-input.ts';
import type { Path } from './problems.ts';
import type { FlowFile } from './schema.ts';

/** Room kept in a callback payload for the engine's signature (`<step instance>.<payload>.<mac8>`, see engine/buttons.ts). */
export const PAYLOAD_SIGNING_RESERVE = 32;

/** A `<` that does not open (or close) one of the tags the platform formats: it would be stripped. */
const STRAY_TAG = /<(?!\/?(?:b|strong|i|em|u|ins|s|del|a|code|pre|mark|h1|br|blockquote)\b)[^\s<>]{1,20}/i;

/** Checks every text of a flow: ids in every locale (with i18n), and length limits. */
export function lintTexts(x: LintInput, texts: TextRef[], report: Report): void {
  const { flow } = x;
  const locales = flow.i18n ? (flow.i18n.locales ?? [...x.catalogs.keys()]) : [];
  if (flow.i18n && !x.catalogs.has(flow.i18n.default_locale)) {
    report(
      'missing-catalog',
      ['i18n', 'default_locale'],
      'error',
      `no catalog for the default locale "${flow.i18n.default_locale}"`,
      `add ${localesDir(x)}/${flow.i18n.default_locale}.ftl`,
    );
  }
  for (const t of texts) {
    if (!flow.i18n) {
      limitCheck(t.label ? t.text.replace(/\{\{[^}]*\}\}/g, 'x') : t.text, t.label, t.path, report, '');
      const stray = (flow.format ?? 'html') === 'html' && !t.label ? STRAY_TAG.exec(t.text) : null;
      if (stray)
        report(
          'stray-html',
          t.path,
          'warning',
          `"${stray[0]}…" reads as an HTML tag (the flow's format is html), which the platform removes`,
          'write &lt; for a literal <, or set format: markdown',
        );
      continue;
    }
    if (/\s/.test(t.text)) {
      report(
        'not-a-message-id',
        t.path,
        'error',
        `"${t.text}" is not a message id, but this flow uses i18n`,
        `put the text in ${localesDir(x)}/<locale>.ftl and write its id here`,
      );
      continue;
    }
    for (const locale of locales) {
      const catalog = x.catalogs.get(locale);
      const message = catalog?.bundle.getMessage(t.text);
      if (!catalog) continue;
      if (!message?.value) {
        report(
          'unknown-message',
          t.path,
          'error',
          `message "${t.text}" is missing in locale ${locale}`,
          `add "${t.text} = …" to ${catalog.file}`,
        );
        continue;
      }
      // Variables are checked with every other read (lint-vars.ts); here they stand as {$name}.
      const rendered = catalog.bundle.formatPattern(message.value, {}, []);
      limitCheck(rendered.replace(/\{\$?[\w-]+\}/g, 'x'), t.label, t.path, report, ` in locale ${locale}`);
    }
  }
  for (const l of flow.i18n?.locales ?? []) {
    if (!x.catalogs.has(l))
      report(
        'missing-catalog',
        ['i18n', 'locales'],
        'error',
        `no catalog for locale "${l}"`,
        `add ${localesDir(x)}/${l}.ftl`,
      );
  }
}

/**
 * Checks the keyboards' shape: rows, buttons per row, total, payload length, of the buttons a step's kind
 * draws itself (its `buttonRows`: an input's options) and then of its `keyboard:`.
 */
export function lintKeyboards(flow: FlowFile, report: Report): void {
  // Keyboard shape limits (rows, per-row, total, payload) with the client's own checks.
  for (const [id, step] of Object.entries(flow.steps)) {
    const rows: Record<string, unknown>[][] = [];
    const origin: Path[] = [];
    const own = kindOf(step).buttonRows?.(step, id);
    rows.push(...(own?.rows ?? []));
    origin.push(...(own?.paths ?? []));
    if ('keyboard' in step) {
      (step.keyboard ?? []).forEach((row, r) => {
        rows.push(row.map((b) => platformButton(b.id === undefined ? { ...b, id: 'x' } : b, 'x')));
        origin.push(['steps', id, 'keyboard', r]);
      });
    }
    if (!rows.length) continue;
    for (const v of checkKeyboard({ buttons: rows }, '')) {
      const m = /buttons\[(\d+)\](?:\[(\d+)\])?/.exec(v.field);
      const rowPath = m ? origin[Number(m[1])] : undefined;
      const path = rowPath
        ? m?.[2] !== undefined && rowPath[2] === 'keyboard'
          ? [...rowPath, Number(m[2])]
          : rowPath
        : [...(origin[0] ?? ['steps', id, 'keyboard'])].slice(0, 3);
      const hint = own?.hint && !v.message.includes('characters') ? own.hint : keyboardHint(v.message);
      report('keyboard-limit', path, 'error', `keyboard ${v.field.replace(/^\.?/, '')} ${v.message}`, hint);
    }
    rows.flat().forEach((b, i) => {
      if (b.type !== 'callback' || typeof b.payload !== 'string') return;
      if (b.payload.length > 1024 - PAYLOAD_SIGNING_RESERVE) {
        report(
          'keyboard-limit',
          ['steps', id, 'keyboard'],
          'error',
          `button ${i + 1}: payload is ${b.payload.length} characters; at most ${1024 - PAYLOAD_SIGNING_RESERVE} fit with the engine's signature`,
          'shorten the button id and value',
        );
      }
    });
  }
}

/** What to do about one of the client's keyboard violations. */
function keyboardHint(message: string): string {
  if (message.includes('when the row holds'))
    return 'a row with a link, open_app, contact or location button takes 3 buttons: move the rest to another row';
  if (message.includes('per row')) return 'split the row in two (at most 7 buttons in a row)';
  if (/characters long/.test(message)) return 'shorten it';
  return 'split the keyboard over several steps (at most 30 rows and 210 buttons)';
}

function limitCheck(text: string, label: boolean, path: Path, report: Report, where: string) {
  if (label) {
    const n = charLength(text);
    if (n < 1 || n > 128)
      report(
        'text-limit',
        path,
        'error',
        `button text is ${n} characters${where}; it must be 1..128`,
        'shorten the label',
      );
    return;
  }
  for (const v of checkText(text))
    report('text-limit', path, 'error', `text ${v.message}${where}`, 'split it over several steps');
}

/** The locales folder of the flows being checked, as the designer would write it. */
function localesDir(x: LintInput): string {
  const base = relative(process.cwd(), resolve(x.baseDir ?? '.')) || '.';
  return `${base === '.' ? '' : `${base}/`}locales`;
}
