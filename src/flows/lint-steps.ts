/**
 * The checks of one step (lint.ts): its media, its keyboard, then its kind's own checks (a menu's way out,
 * a message's buttons, an input's options and rules: kinds/<kind>/, through `check` of the contract), and
 * its `next` list.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { lintButton } from './buttons.ts';
import { kindOf } from './kinds/registry.ts';
import type { LintInput, Report } from './lint-input.ts';
import type { Path } from './problems.ts';
import type { Button, FlowFile, Step } from './schema.ts';

/** A button's path in its step's keyboard. */
function pathOfButton(flow: FlowFile, id: string, b: unknown): Path {
  const step = flow.steps[id]!;
  const rows = 'keyboard' in step ? (step.keyboard ?? []) : [];
  for (let r = 0; r < rows.length; r++) {
    const c = rows[r]!.indexOf(b as never);
    if (c >= 0) return ['steps', id, 'keyboard', r, c];
  }
  return ['steps', id, 'keyboard'];
}

/** A step sends one media file, and a file it names exists. */
function lintMedia(x: LintInput, p: Path, step: Step, report: Report): void {
  const media = 'media' in step && step.media ? Object.entries(step.media).filter(([, v]) => v) : [];
  if (media.length > 1)
    report(
      'several-media',
      [...p, 'media'],
      'error',
      'a step sends one media file',
      'keep one of image, video, audio, file',
    );
  for (const [kind, source] of media) {
    if (!/^https?:\/\//.test(source!) && !existsSync(resolve(x.baseDir ?? '.', source!))) {
      report(
        'missing-file',
        [...p, 'media', kind],
        'error',
        `media file "${source}" does not exist`,
        `paths are relative to the flows folder (${x.baseDir ?? '.'})`,
      );
    }
  }
}

/** Each button, and the ids unique in the step. */
function lintKeyboard(flow: FlowFile, id: string, buttons: Button[], report: Report): void {
  const p = ['steps', id];
  buttons.forEach((b) => {
    lintButton(b, pathOfButton(flow, id, b), report);
  });
  const ids = buttons.map((b) => b.id).filter(Boolean);
  const dup = ids.find((b, i) => ids.indexOf(b) !== i);
  if (dup)
    report(
      'duplicate-button-id',
      [...p, 'keyboard'],
      'error',
      `two buttons of step "${id}" have the id "${dup}"`,
      'ids must be unique per step',
    );
}

/** Whether flow `id` hands anything back (an end step's `return`); undefined when no such flow loaded. */
function returnsOf(x: LintInput, id: string): boolean | undefined {
  const f = x.flows.get(id);
  return f && Object.values(f.steps).some((s) => kindOf(s).returns?.(s) !== undefined);
}

/** One step: its media, buttons, then its kind's own checks (kinds/<kind>/), and its `next` list. */
export function lintStep(x: LintInput, id: string, step: Step, report: Report): void {
  const { flow } = x;
  const p = ['steps', id];
  lintMedia(x, p, step, report);
  const buttons = 'keyboard' in step ? (step.keyboard ?? []).flat() : [];
  lintKeyboard(flow, id, buttons, report);
  kindOf(step).check?.(step, { x, id, report, returns: (f) => returnsOf(x, f) });
  if ('next' in step && Array.isArray(step.next) && step.next[step.next.length - 1]?.when) {
    report(
      'next-without-fallback',
      [...p, 'next', step.next.length - 1],
      'error',
      'the last entry of next has a condition: when none holds, nothing happens',
      'end the list with an entry without when',
    );
  }
}
