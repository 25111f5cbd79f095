/**
 * Checks for what a designer means but the format alone does not catch: rules that cannot pass for the
 * input kind, `render: edit` after a typed answer, locales without built-in texts, `come_back` without a
 * `goto`, `save_as` on a flow that returns nothing, and the flow defaults' idle target.
 */
import { hasBuiltinCatalog } from './builtin-texts.ts';
import { kindsOf } from './inputs.ts';
import type { LintInput, Report } from './lint-input.ts';
import { closest } from './problems.ts';
import type { InputKind, Route } from './schema.ts';

/** Kinds whose answer is typed text (length and regex rules test the text). */
const TYPED = new Set<InputKind>(['text', 'number', 'integer', 'email', 'phone', 'date', 'time', 'url']);

type Flow = LintInput['flow'];

/**
 * An input's range rules with text bounds, and the steps its answers lead to: `typedInto` after a typed
 * answer, `choiceInto` after a choice (which takes typed answers too: "the second one", a label).
 */
function lintInputsAndTargets(flow: Flow, report: Report) {
  const typedInto = new Set<string>();
  // Steps a choice leads to: a choice takes typed answers ("the second one", a label) as well as presses.
  const choiceInto = new Map<string, string>();
  for (const [id, step] of Object.entries(flow.steps)) {
    if (step.type !== 'input') continue;
    const kinds = kindsOf(step);
    const p = ['steps', id];
    (step.validate ?? []).forEach((rule, i) => {
      const where = [...p, 'validate', i];
      const bad = (why: string, hint: string) => report(where, 'error', why, hint);
      if (rule.rule === 'range' && kinds.every((k) => k === 'number' || k === 'integer')) {
        for (const b of [rule.min, rule.max])
          if (typeof b === 'string')
            bad(
              `range bound "${b}" is text, but the answer is a number: no answer can pass`,
              'write it as a number',
            );
      }
    });
    const targets = typeof step.next === 'string' ? [step.next] : step.next.map((n) => n.goto);
    if (kinds.some((k) => TYPED.has(k))) for (const t of targets) typedInto.add(t);
    else if (kinds.some((k) => k === 'choice' || k === 'multi_choice'))
      for (const t of targets) if (!choiceInto.has(t)) choiceInto.set(t, id);
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
    if (s && s.type !== 'input' && mode === 'edit') {
      report(
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
    if (typedInto.has(t) || !s || s.type === 'input' || mode !== 'edit') continue;
    report(
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
    if (step.type === 'menu' && step.on_text)
      routes.push({ route: step.on_text, path: ['steps', id, 'on_text'] });
    for (const [name, route] of Object.entries('on_event' in step ? (step.on_event ?? {}) : {}))
      routes.push({ route, path: ['steps', id, 'on_event', name] });
  }
  for (const { route, path } of routes)
    if (route.come_back && !route.goto)
      report(
        [...path, 'come_back'],
        'error',
        'come_back needs a goto (the step to edit)',
        'add goto: <input step>',
      );
}

/** Sub-flows: save_as needs a flow that returns something. */
function lintSaveAs(x: LintInput, report: Report) {
  const { flow } = x;
  for (const [id, step] of Object.entries(flow.steps)) {
    if (step.type !== 'call' || !step.save_as) continue;
    const callee = x.flows.get(step.flow);
    if (callee && !Object.values(callee.steps).some((s) => s.type === 'end' && s.return !== undefined))
      report(
        ['steps', id, 'save_as'],
        'error',
        `flow "${step.flow}" returns nothing for save_as`,
        `give an end step of ${step.flow} a return: <variable>`,
      );
  }
}

/** The flow defaults' idle target is a step. */
function lintDefaultIdle(flow: Flow, report: Report) {
  const idle = flow.defaults?.idle?.goto;
  if (idle && !flow.steps[idle]) {
    const guess = closest(idle, Object.keys(flow.steps));
    report(
      ['defaults', 'idle', 'goto'],
      'error',
      `unknown step "${idle}"`,
      guess ? `did you mean "${guess}"?` : undefined,
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
  const { typedInto, choiceInto } = lintInputsAndTargets(flow, report);
  lintEditAfterTyped(flow, typedInto, choiceInto, report);
  lintComeBack(flow, report);
  lintSaveAs(x, report);
  lintDefaultIdle(flow, report);
  lintBuiltinLocales(x, report);
}

/** Whether input step `id` is drawn with `render: edit` (its own, or the flow's default). */
function editedBack(flow: LintInput['flow'], id: string): boolean {
  const s = flow.steps[id];
  return (s && 'render' in s && s.render ? s.render : flow.defaults?.render) === 'edit';
}
