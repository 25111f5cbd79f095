/** The variables an `input` step's own fields read: its time zone ("{{zone}}"), its `options_from` list and value. */

import type { Path } from '../../problems.ts';
import { describeType, UNKNOWN } from '../../var-types.ts';
import type { StepReads } from '../contract.ts';
import type { InputStep } from './schema.ts';

/** An input's time zone read from a variable, and its `options_from` list and value. */
export function inputReads(step: InputStep, r: StepReads): void {
  const p = ['steps', r.id];
  if (step.time_zone?.includes('{{')) r.template([...p, 'time_zone'], step.time_zone);
  const from = step.options_from;
  if (!from) return;
  r.variable([...p, 'options_from', 'list'], from.list);
  const list = r.typeOf(from.list);
  if (from.value)
    r.variable([...p, 'options_from', 'value'], from.value, list?.kind === 'list' ? list.item : UNKNOWN);
  if (list && list.kind !== 'list' && list.kind !== 'unknown')
    r.report(
      'not-a-list',
      [...p, 'options_from', 'list'],
      'error',
      `"${from.list}" is ${describeType(list)}, not a list`,
      'options_from.list names a variable holding a list (a task result, a computed value)',
    );
}

/** Under `options_from` (but not its `empty` route), `{{item}}` is an element of its list. */
export const itemListAt = (step: InputStep, path: Path): string | undefined =>
  step.options_from && path.includes('options_from') && !path.includes('empty')
    ? step.options_from.list
    : undefined;
