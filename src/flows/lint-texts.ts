/**
 * The text and keyboard checks of the linter: i18n message ids in every locale (or literal texts and their
 * variables), and the platform's limits per locale, with the API client's own limit checks.
 */
import { relative, resolve } from 'node:path';
import { checkKeyboard, checkText } from '../client/limits.ts';
import type { TextRef } from './flow-walk.ts';
import type { LintInput, Report } from './lint-input.ts';
import type { FlowFile } from './schema.ts';
import type { Path } from './yaml-source.ts';

/** Room kept in a callback payload for the engine's signature (`<step instance>.<payload>.<mac8>`, see engine/buttons.ts). */
export const PAYLOAD_SIGNING_RESERVE = 32;
const RESERVED_VARS = new Set(['start_payload', 'locale', 'button_value', 'task_error']);

/** A `<` that does not open (or close) one of the tags the platform formats: it would be stripped. */
const STRAY_TAG = /<(?!\/?(?:b|strong|i|em|u|ins|s|del|a|code|pre|mark|h1|br|blockquote)\b)[^\s<>]{1,20}/i;

/** Checks every text of a flow: ids in every locale (with i18n), variables and length limits. */
export function lintTexts(x: LintInput, texts: TextRef[], report: Report): void {
  const { flow } = x;
  // Texts: i18n ids in every locale, or literal texts; limits per locale.
  const saved = new Set<string>(RESERVED_VARS);
  for (const s of Object.values(flow.steps)) {
    if (s.type === 'input' && s.save) saved.add(s.save);
    // A task's result, and whatever its outcome routes set.
    for (const d of 'do' in s ? (s.do ?? []) : []) {
      if (!('task' in d)) continue;
      if (d.save_as) saved.add(d.save_as);
      for (const r of [d.on_done, d.on_timeout, ...[d.on_error].flat()])
        if (r && typeof r === 'object') for (const k of Object.keys(r.set ?? {})) saved.add(k);
    }
    if (s.type === 'call') {
      if (s.save_as) saved.add(s.save_as);
      for (const k of Object.keys(s.with ?? {})) saved.add(k);
      // A called flow shares the caller's variables: what it saves is known here too.
      for (const c of Object.values(x.flows.get(s.flow)?.steps ?? {}))
        if (c.type === 'input' && c.save) saved.add(c.save);
    }
  }
  const collectSet = (v?: Record<string, unknown>) =>
    Object.keys(v ?? {}).forEach((k) => {
      saved.add(k);
    });
  for (const s of Object.values(flow.steps)) {
    if ('keyboard' in s)
      (s.keyboard ?? []).flat().forEach((b) => {
        collectSet(b.set);
      });
    if (s.type === 'input') collectSet(s.retries.exhausted.set);
    if (s.type === 'menu') collectSet(s.on_text?.set);
  }
  Object.values(flow.commands ?? {}).forEach((c) => {
    collectSet(c.set);
  });
  (flow.migrate ?? []).forEach((m) => {
    collectSet(m.context?.set);
  });
  const locales = flow.i18n ? (flow.i18n.locales ?? [...x.catalogs.keys()]) : [];
  if (flow.i18n && !x.catalogs.has(flow.i18n.default_locale)) {
    report(
      ['i18n', 'default_locale'],
      'error',
      `no catalog for the default locale "${flow.i18n.default_locale}"`,
      `add ${localesDir(x)}/${flow.i18n.default_locale}.ftl`,
    );
  }
  for (const t of texts) {
    if (!flow.i18n) {
      for (const v of [...t.text.matchAll(/\{\{\s*([\w.]+)\s*\}\}/g)].map((m) => m[1]!.split('.')[0]!)) {
        // Built-in texts get their placeholders ({{min}}, {{flow}}, …) as variables.
        if (!saved.has(v) && t.path[0] !== 'texts')
          report(
            t.path,
            'warning',
            `variable "${v}" is never saved by this flow`,
            'save it with an input, or set it with set:',
          );
      }
      limitCheck(t.label ? t.text.replace(/\{\{[^}]*\}\}/g, 'x') : t.text, t.label, t.path, report, '');
      const stray = (flow.format ?? 'html') === 'html' && !t.label ? STRAY_TAG.exec(t.text) : null;
      if (stray)
        report(
          t.path,
          'warning',
          `"${stray[0]}…" reads as an HTML tag (the flow's format is html), which the platform removes`,
          'write &lt; for a literal <, or set format: markdown',
        );
      continue;
    }
    if (/\s/.test(t.text)) {
      report(
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
          t.path,
          'error',
          `message "${t.text}" is missing in locale ${locale}`,
          `add "${t.text} = …" to ${catalog.file}`,
        );
        continue;
      }
      // Every variable the flow can save, so that only the ones it never saves are reported.
      const errors: Error[] = [];
      const args = Object.fromEntries([...saved].map((v) => [v, 'x']));
      const rendered = catalog.bundle.formatPattern(message.value, args, errors);
      for (const error of errors) {
        const unknown = /Unknown variable: \$([\w-]+)/.exec(error.message)?.[1];
        // A field of a saved object reaches catalogs as `<name>_<field>` (booking.id → $booking_id).
        const ofObject = unknown && [...saved].some((v) => unknown.startsWith(`${v}_`));
        if (unknown && !ofObject)
          report(
            t.path,
            'warning',
            `variable "${unknown}" of message "${t.text}" (${catalog.file}) is never saved by this flow`,
            'a typo in the catalog? or save it with an input, or set it with set:',
          );
      }
      limitCheck(rendered.replace(/\{\$?[\w-]+\}/g, 'x'), t.label, t.path, report, ` in locale ${locale}`);
    }
  }
  for (const l of flow.i18n?.locales ?? []) {
    if (!x.catalogs.has(l))
      report(['i18n', 'locales'], 'error', `no catalog for locale "${l}"`, `add ${localesDir(x)}/${l}.ftl`);
  }
}

/** Checks the keyboards' shape: rows, buttons per row, total, payload length. */
export function lintKeyboards(flow: FlowFile, report: Report): void {
  // Keyboard shape limits (rows, per-row, total, payload) with the client's own checks.
  for (const [id, step] of Object.entries(flow.steps)) {
    const rows: { type: string; text: string; payload?: string; url?: string }[][] = [];
    const origin: Path[] = [];
    if (step.type === 'input' && step.options) {
      const per = step.columns ?? 1;
      for (let i = 0; i < step.options.length; i += per) {
        rows.push(
          step.options.slice(i, i + per).map((o) => ({ type: 'callback', text: 'x', payload: o.id })),
        );
        origin.push(['steps', id, 'options', i]);
      }
    }
    if ('keyboard' in step) {
      (step.keyboard ?? []).forEach((row, r) => {
        rows.push(
          row.map((b) => ({
            type: b.url
              ? 'link'
              : b.request === 'contact'
                ? 'request_contact'
                : b.request === 'location'
                  ? 'request_geo_location'
                  : 'callback',
            text: 'x',
            ...(b.url ? { url: b.url } : { payload: b.value ? `${b.id}:${b.value}` : (b.id ?? 'x') }),
          })),
        );
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
        : ['steps', id, 'keyboard'];
      report(
        path,
        'error',
        `keyboard ${v.field.replace(/^\.?/, '')} ${v.message}`,
        'split the keyboard over several rows or steps',
      );
    }
    rows.flat().forEach((b, i) => {
      if (b.payload && b.payload.length > 1024 - PAYLOAD_SIGNING_RESERVE) {
        report(
          ['steps', id, 'keyboard'],
          'error',
          `button ${i + 1}: payload is ${b.payload.length} characters; at most ${1024 - PAYLOAD_SIGNING_RESERVE} fit with the engine's signature`,
          'shorten the button id and value',
        );
      }
    });
  }
}

function limitCheck(text: string, label: boolean, path: Path, report: Report, where: string) {
  if (label) {
    const n = [...text].length;
    if (n < 1 || n > 128)
      report(path, 'error', `button text is ${n} characters${where}; it must be 1..128`, 'shorten the label');
    return;
  }
  for (const v of checkText(text))
    report(path, 'error', `text ${v.message}${where}`, 'split it over several steps');
}

/** The locales folder of the flows being checked, as the designer would write it. */
function localesDir(x: LintInput): string {
  const base = relative(process.cwd(), resolve(x.baseDir ?? '.')) || '.';
  return `${base === '.' ? '' : `${base}/`}locales`;
}
