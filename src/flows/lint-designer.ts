/**
 * Checks for what a designer means but the format alone does not catch: `render: edit` after a typed
 * answer, locales without built-in texts, `come_back` without a `goto`, and the flow defaults' idle target.
 * (Range bounds that no number can pass and `save_as` on a flow that returns nothing are the input's and
 * the call's own checks: kinds/input/check.ts, kinds/call/index.ts.)
 */
import { hasBuiltinCatalog } from './builtin-texts.ts';
import { kindOf } from './kinds/registry.ts';
import type { LintInput, Report } from './lint-input.ts';
import { closest } from './problems.ts';
import type { Route } from './schema.ts';

type Flow = LintInput['flow'];

/**
 * The steps typed answers lead to (the kinds' `typedAnswer`): `typedInto` after free text, `choiceInto` after
 * a choice (which takes typed answers too: "the second one", a label), with the step it follows.
 */
function typedTargets(flow: Flow) {
  const typedInto = new Set<string>();
  const choiceInto = new Map<string, string>();
  for (const [id, step] of Object.entries(flow.steps)) {
    const typed = kindOf(step).typedAnswer?.(step);
    if (typed?.as === 'text') for (const t of typed.to) typedInto.add(t);
    else if (typed?.as === 'choice') for (const t of typed.to) if (!choiceInto.has(t)) choiceInto.set(t, id);
  }
  return { typedInto, choiceInto };
}

/** `render: edit` on a step reached by a typed answer: it is sent as a new message there. */
function lintEditAfterTyped(
  flow: Flow,
  typedInto: Set<string>,
  choiceInto: Map<string, string>,
  report: Report,
) {
  for (const t of typedInto) {
    const s = flow.steps[t];
    const mode = s && 'render' in s && s.render ? s.render : flow.defaults?.render;
    if (s && !kindOf(s).asksQuestion && mode === 'edit') {
      report(
        'render-edit-after-typed',
        ['steps', t, 'render'],
        'warning',
        `step "${t}" follows a typed answer: render: edit sends a new message there (only a pressed button's message is edited)`,
        'drop render: edit here, or reach the step from a button',
      );
    }
  }
  for (const [t, from] of choiceInto) {
    const s = flow.steps[t];
    const mode = s && 'render' in s && s.render ? s.render : flow.defaults?.render;
    if (typedInto.has(t) || !s || kindOf(s).asksQuestion || mode !== 'edit') continue;
    report(
      'render-edit-after-typed',
      ['steps', t, 'render'],
      'warning',
      `step "${t}" follows input "${from}", which also takes typed answers: after a typed answer render: edit sends "${t}" as a new message, and the message with the choices stays above it, its buttons still there`,
      editedBack(flow, from)
        ? 'drop render: edit here, or keep it knowing that a typed answer gets a new message'
        : `give "${from}" render: edit too (going back to it then redraws this message, instead of leaving it above with its buttons), or drop render: edit here`,
    );
  }
}

/** Routes: come_back needs a goto. */
function lintComeBack(flow: Flow, report: Report) {
  const routes: { route: Route; path: (string | number)[] }[] = [];
  for (const [id, step] of Object.entries(flow.steps)) {
    if ('keyboard' in step)
      (step.keyboard ?? []).forEach((row, r) => {
        row.forEach((b, i) => {
          routes.push({ route: b, path: ['steps', id, 'keyboard', r, i] });
        });
      });
    for (const r of kindOf(step).routes?.(step) ?? [])
      if (r.onSend) routes.push({ route: r.route, path: ['steps', id, ...r.path] });
    for (const [name, route] of Object.entries('on_event' in step ? (step.on_event ?? {}) : {}))
      routes.push({ route, path: ['steps', id, 'on_event', name] });
  }
  for (const { route, path } of routes)
    if (route.come_back && !route.goto)
      report(
        'come-back-without-goto',
        [...path, 'come_back'],
        'error',
        'come_back needs a goto (the step to edit)',
        'add goto: <input step>',
      );
}

/** The flow defaults' idle target is a step. */
function lintDefaultIdle(flow: Flow, report: Report) {
  const idle = flow.defaults?.idle?.goto;
  if (idle && !flow.steps[idle]) {
    const guess = closest(idle, Object.keys(flow.steps));
    report(
      'unknown-step',
      ['defaults', 'idle', 'goto'],
      'error',
      `unknown step "${idle}"`,
      guess ? `did you mean "${guess}"?` : undefined,
      { within: idle, ...(guess ? { change: guess } : {}) },
    );
  }
}

/** Built-in texts: every locale the flow speaks needs botflow's catalog, or the flow's own overrides. */
function lintBuiltinLocales(x: LintInput, report: Report) {
  const { flow } = x;
  if (flow.i18n) {
    const locales = flow.i18n.locales ?? [...x.catalogs.keys()];
    for (const l of locales) {
      const own = x.catalogs.get(l)?.bundle.hasMessage('botflow-error-text');
      if (!hasBuiltinCatalog(l) && !own && !flow.texts)
        report(
          'no-builtin-texts',
          ['i18n'],
          'warning',
          `botflow has no built-in texts for locale "${l}": its people would see English error messages`,
          `add botflow-error-text, botflow-error-number, … to the ${l} catalog, or texts: to the flow`,
        );
    }
  }
}

/** Runs the designer checks on one flow. */
export function lintDesigner(x: LintInput, report: Report): void {
  const { flow } = x;
  const { typedInto, choiceInto } = typedTargets(flow);
  lintEditAfterTyped(flow, typedInto, choiceInto, report);
  lintComeBack(flow, report);
  lintDefaultIdle(flow, report);
  lintBuiltinLocales(x, report);
}

/** Whether input step `id` is drawn with `render: edit` (its own, or the flow's default). */
function editedBack(flow: LintInput['flow'], id: string): boolean {
  const s = flow.steps[id];
  return (s && 'render' in s && s.render ? s.render : flow.defaults?.render) === 'edit';
}
