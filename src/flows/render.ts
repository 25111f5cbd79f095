/**
 * How a compiled step looks to the person: its texts in their locale (flow texts, catalog messages and
 * botflow's built-in texts), its keyboard, and the message that draws it (sent, edited in place, or sent
 * with an uploaded medium). Pure: everything becomes `botflow.effect` actions.
 */
import { resolve as resolvePath } from 'node:path';
import { EFFECT_ACTION, type Effect } from '../engine/step/contract.ts';
import { builtinText } from './builtin-texts.ts';
import { platformButton } from './buttons.ts';
import type { SayText } from './inputs.ts';
import type { KindOf } from './kinds/contract.ts';
import type { Button } from './kinds/fields.ts';
import type { FlowFile } from './kinds/steps.ts';
import type { Enqueue, FlowContext, StepEntry } from './machine-context.ts';
import { fillTemplate } from './texts.ts';

/** Choice buttons per page of an `options_from` step, unless it sets `page_size`. */
export const DEFAULT_PAGE_SIZE = 8;

/** The ref of sends whose message id the flow keeps for `render: edit`. */
export const RENDER_REF = 'render';

/** The drawing helpers of one compiled flow. */
export type Rendering = ReturnType<typeof renderingFor>;

type Say = (e: StepEntry, c: FlowContext, text: SayText | string) => string;
type Effects = (enqueue: Enqueue, params: Effect) => void;

/** A step's texts in the person's locale: flow texts, catalog messages and botflow's built-in texts. */
export function textsFor(root: FlowFile) {
  const localeOf = (e: StepEntry, c: FlowContext) =>
    e.text.locale(typeof c.vars.locale === 'string' ? c.vars.locale : c.locale);
  const say: Say = (e, c, text) => {
    if (typeof text === 'string') return e.text.render(text, c.vars, localeOf(e, c));
    if ('literal' in text) return text.literal;
    if ('flowText' in text) return e.text.render(text.flowText, c.vars, localeOf(e, c));
    // A built-in text: the flow's `texts:` override, the flow's own catalog (`botflow-<key>`), botflow's.
    const args = text.args ?? {};
    const override = e.flow.texts?.[text.builtin] ?? root.texts?.[text.builtin];
    const locale = localeOf(e, c);
    if (override) return e.text.render(override, { ...c.vars, ...args }, locale);
    const id = `botflow-${text.builtin}`;
    if (e.text.has?.(id, locale)) return e.text.render(id, { ...c.vars, ...args }, locale);
    return builtinText(text.builtin, locale, args);
  };
  const doneText = (e: StepEntry, c: FlowContext) => say(e, c, { builtin: 'multi-done' });
  return { localeOf, say, doneText };
}

/** A step's keyboard: its kind's rows (an input's options or a page of its choices), then its own buttons. */
function keyboardFor(say: Say, doneText: (e: StepEntry, c: FlowContext) => string, kindOf: KindOf) {
  const button = (e: StepEntry, c: FlowContext, b: Button) => {
    return platformButton(b, say(e, c, b.text), (t) => fillTemplate(t, c.vars));
  };
  const draw = { say, doneText };
  return (e: StepEntry, c: FlowContext) => {
    const s = e.step;
    const own = kindOf(s).keyboard?.(s, e, c, draw);
    const rows: unknown[][] = own ?? [];
    if ('keyboard' in s && s.keyboard)
      for (const row of s.keyboard) rows.push(row.map((b) => button(e, c, b)));
    return rows.length ? { type: 'inline_keyboard', payload: { buttons: rows } } : undefined;
  };
}

/**
 * Draws a step: edits `c.mid` for `render: edit` (or when `editPressed`: a page turn redraws the pressed
 * message whatever the step's mode), else sends a new message.
 */
function drawing(
  kindOf: KindOf,
  say: Say,
  keyboardOf: ReturnType<typeof keyboardFor>,
  effect: Effects,
  usesEdit: boolean,
  baseDir: string,
) {
  return (e: StepEntry, c: FlowContext, enqueue: Enqueue, forceNew = false, editPressed = false) => {
    const s = e.step;
    if (kindOf(s).drawsItself) return; // a handoff says its text itself
    const text = 'say' in s && s.say ? say(e, c, s.say) : undefined;
    const keyboard = keyboardOf(e, c);
    const media = 'media' in s && s.media ? Object.entries(s.media).find(([, v]) => v) : undefined;
    const attachments: unknown[] = keyboard ? [keyboard] : [];
    if (media) {
      const [type, source] = media as ['image' | 'video' | 'audio' | 'file', string];
      if (type === 'image' && /^https?:\/\//.test(source)) {
        attachments.unshift({ type: 'image', payload: { url: source } });
      } else {
        effect(enqueue, {
          kind: 'upload_and_send',
          media: { type, source: /^https?:\/\//.test(source) ? source : resolvePath(baseDir, source) },
          message: { text, attachments: attachments as never, format: e.format },
          ...(usesEdit ? { ref: RENDER_REF } : {}),
        });
        return;
      }
    }
    if (!text && !attachments.length) return;
    const mode = 'render' in s && s.render ? s.render : e.flow.defaults?.render;
    const edit = !forceNew && (mode === 'edit' || editPressed) && c.mid && !media;
    if (edit) {
      effect(enqueue, {
        kind: 'api',
        op: 'editMessage',
        args: { message_id: c.mid, text, attachments, format: e.format },
      });
      return;
    }
    effect(enqueue, {
      kind: 'api',
      op: 'sendMessage',
      args: { text, attachments, format: e.format },
      ...(usesEdit ? { ref: RENDER_REF } : {}),
    });
  };
}

/** Builds the drawing helpers of a flow (`root`); `usesEdit`: some step is drawn with `render: edit`. */
export function renderingFor(root: FlowFile, usesEdit: boolean, baseDir: string, kindOf: KindOf) {
  const { localeOf, say, doneText } = textsFor(root);
  const effect = (enqueue: Enqueue, params: Effect) => enqueue({ type: EFFECT_ACTION, params });
  const send = (enqueue: Enqueue, e: StepEntry, text: string) =>
    effect(enqueue, {
      kind: 'api',
      op: 'sendMessage',
      args: { text, format: e.format },
      ...(usesEdit ? { ref: RENDER_REF } : {}),
    });
  const keyboardOf = keyboardFor(say, doneText, kindOf);
  const render = drawing(kindOf, say, keyboardOf, effect, usesEdit, baseDir);
  return { localeOf, say, doneText, effect, send, keyboardOf, render };
}
