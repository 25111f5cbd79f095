/**
 * The `menu` step: a keyboard of buttons; a press (or a button's label typed) takes its route, an intent
 * takes its own, and other text takes `on_text` or draws the menu again.
 */
import type { Builder } from '../../graph-builder.ts';
import { act, routeTransition, type StepState } from '../../state-parts.ts';
import { namedButtons } from '../../typed-answers.ts';
import { type Walker, walkKeyboard } from '../../walker.ts';
import { type StepKind, stepKind } from '../contract.ts';
import { menuParts, typedMenuTransitions } from './answers.ts';
import { checkMenu } from './check.ts';
import { MenuStep } from './schema.ts';

function walk(step: MenuStep, w: Walker, id: string) {
  walkKeyboard(w, id, step.keyboard);
  w.route(['steps', id, 'on_text'], id, step.on_text, 'text');
}

function graph(step: MenuStep, g: Builder, id: string) {
  g.waiting.push(id);
  g.route(id, step.on_text, 'text');
}

/** A menu: typed text naming a button, an intent, else its `on_text` (or it is drawn again). */
function state(step: MenuStep, { k, key, s, enter, waiting }: StepState) {
  const { leave, on, add, intents } = waiting();
  const byRoute: Parameters<typeof typedMenuTransitions>[2] = (key, route, b) =>
    routeTransition(k, key, route, b);
  for (const t of typedMenuTransitions(key, step.keyboard, byRoute)) add('message', t);
  for (const t of intents.message) add('message', t);
  // Typed text that named no button and no intent: the funnel counts it (`input.unrecognised`).
  const heard = act('unrecognisedText', s);
  const text = step.on_text
    ? routeTransition(k, key, 'on_text', step.on_text)
    : { actions: [act('rerender', { ...s, fresh: true })] };
  add('message', { ...text, actions: [heard, ...text.actions] });
  return { entry: enter, exit: leave, on };
}

/** Its callback buttons, by label or alias. */
function typedChoices(step: MenuStep, id: string) {
  const named = new Set<unknown>(namedButtons(step.keyboard));
  return step.keyboard.flatMap((row, r) =>
    row.flatMap((b, c) =>
      named.has(b)
        ? [{ id: b.id!, text: b.text, aliases: b.aliases, path: ['steps', id, 'keyboard', r, c] }]
        : [],
    ),
  );
}

export const menu: StepKind<MenuStep> = stepKind({
  type: 'menu',
  summary: 'Shows buttons: a press (or a label typed) takes its route; other text takes on_text',
  schema: MenuStep,
  understands: true,
  walk,
  graph,
  state,
  check: checkMenu,
  routes: (step) => (step.on_text ? [{ path: ['on_text'], route: step.on_text, onSend: true }] : []),
  namesButtons: true,
  typedChoices,
  drawing: { shape: 'rect', label: 'menu' },
  onText: (step) => step.on_text,
  resumes: true,
  parts: menuParts,
});
