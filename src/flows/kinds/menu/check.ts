/** The `menu` step's own check (`botflow check`): someone can leave it. */
import type { StepCheck } from '../contract.ts';
import type { MenuStep } from './schema.ts';

/** A menu someone can leave: a callback button, and one that goes somewhere. */
export function checkMenu(step: MenuStep, { x, id, report }: StepCheck): void {
  const p = ['steps', id];
  const buttons = step.keyboard.flat();
  const understood = step.understand ? Object.values(step.understand.intents) : [];
  const leaves =
    buttons.some((b) => b.id && (b.goto || b.call)) || step.on_text?.goto || understood.some((r) => r.goto);
  if (!buttons.some((b) => b.id || b.request)) {
    report(
      'menu-without-callback',
      [...p, 'keyboard'],
      'error',
      `menu "${id}" has no callback button: nobody can leave it`,
      'add a button with an id and a goto',
    );
  } else if (!leaves && !x.flow.commands) {
    report(
      'dead-end',
      [...p, 'keyboard'],
      'warning',
      `no button of menu "${id}" goes anywhere (dead end)`,
      'give a button a goto',
    );
  }
}
