// "Start at a step": the designer puts the person's conversation on any step of a flow with chosen
// variables; the step's prompt is sent and its reminders are armed, as if the dialog had got there.
import { inspector } from './api.js';
import { h } from './dom.js';

/** The section, or null when the person has no chat with the bot yet (the prompt needs one). */
export function jumpSection({ flows, user, chatId, current, draft, onDraft, onDone }) {
  if (chatId === undefined || flows.length === 0) return null;
  // What the designer chose so far outlives the panel's redraws (a step, a timer, every 5 s on PostgreSQL).
  const chosen = draft ?? {
    flowId: current?.flowId,
    step: current?.step,
    vars: JSON.stringify(current?.vars ?? {}, null, 0),
  };
  const keep = () => onDraft?.({ flowId: flowSelect.value, step: stepSelect.value, vars: vars.value });
  const stepsOf = (flowId) =>
    (flows.find((f) => f.id === flowId)?.graph.nodes ?? [])
      .map((n) => n.id)
      .filter((id) => !id.startsWith('__'));
  const flowSelect = h(
    'select',
    { name: 'flow', 'aria-label': 'Flow' },
    flows.map((f) => h('option', { value: f.id, selected: f.id === chosen.flowId }, f.id)),
  );
  const stepSelect = h('select', { name: 'step', 'aria-label': 'Step' });
  const fillSteps = () =>
    stepSelect.replaceChildren(
      ...stepsOf(flowSelect.value).map((id) => h('option', { value: id, selected: id === chosen.step }, id)),
    );
  flowSelect.addEventListener('change', fillSteps);
  fillSteps();
  const vars = h(
    'textarea',
    { name: 'vars', rows: 3, 'aria-label': 'Variables (JSON)', spellcheck: false },
    chosen.vars,
  );
  flowSelect.addEventListener('change', keep);
  stepSelect.addEventListener('change', keep);
  vars.addEventListener('input', keep);
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const form = h(
    'form',
    {
      class: 'jump-form',
      onsubmit: async (event) => {
        event.preventDefault();
        error.hidden = true;
        let parsed;
        try {
          parsed = JSON.parse(vars.value || '{}');
        } catch {
          error.textContent = 'The variables are not JSON: write {"name": "Ann", "age": 30}';
          error.hidden = false;
          return;
        }
        try {
          await inspector.jump({
            user_id: user.user_id,
            chat_id: chatId,
            flow: flowSelect.value,
            step: stepSelect.value,
            vars: parsed,
            ...(user.locale ? { locale: user.locale } : {}),
          });
          onDone();
        } catch (e) {
          error.textContent = e.message;
          error.hidden = false;
        }
      },
    },
    h('div', { class: 'jump-row' }, flowSelect, h('span', { class: 'muted' }, '›'), stepSelect),
    vars,
    h('button', { type: 'submit', class: 'btn btn-small' }, 'Start here'),
    error,
  );
  return h(
    'section',
    { class: 'panel-section', 'aria-label': 'Start at a step' },
    h('h3', {}, 'Start at a step'),
    form,
  );
}
