// The graph's step form: a step's texts (say, question), its buttons (label and where each goes) and its
// next step, edited without opening the file. Submitting asks the server (POST /_editor/step) to write
// the same YAML, only the touched values changed (src/lsp/yaml-edit.ts); the chat reloads the flow.
import { h } from './dom.js';

async function call(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(data.message ?? res.statusText), { status: res.status });
  return data;
}

/** The entry of `flow`/`step` in the panel's cache (it outlives redraws), fetched on first sight. */
function entryOf(panel, flow, step) {
  panel.stepForms ??= new Map();
  const key = `${flow}/${step}`;
  let entry = panel.stepForms.get(key);
  if (!entry) {
    entry = { state: 'loading' };
    panel.stepForms.set(key, entry);
    call('GET', `/_editor/step?${new URLSearchParams({ flow, step })}`)
      .then((data) => Object.assign(entry, { state: 'ready', ...data, draft: structuredClone(data.form) }))
      .catch((error) => Object.assign(entry, { state: 'failed', message: error.message }))
      .finally(() => panel.refresh());
  }
  return entry;
}

function textField(draft, key, label) {
  if (draft[key] === undefined) return null;
  return h(
    'label',
    { class: 'step-form-field' },
    h('span', {}, label),
    h(
      'textarea',
      {
        name: `step-${key}`,
        rows: Math.min(Math.max(String(draft[key]).split('\n').length, 2), 6),
        'aria-label': label,
        oninput: (event) => {
          draft[key] = event.target.value;
        },
      },
      draft[key],
    ),
  );
}

function buttonRows(draft) {
  return (draft.buttons ?? []).map((button, i) =>
    h(
      'div',
      { class: 'step-form-button' },
      h('input', {
        name: `button-${i}-text`,
        value: button.text ?? button.label,
        'aria-label': `Button ${button.label}: label`,
        oninput: (event) => {
          button.text = event.target.value;
        },
      }),
      h('span', { class: 'muted' }, '→'),
      h('input', {
        name: `button-${i}-goto`,
        value: button.goto ?? '',
        'aria-label': `Button ${button.label}: goes to`,
        oninput: (event) => {
          button.goto = event.target.value;
        },
      }),
    ),
  );
}

/** The form for `step` of `flow`, or a line saying why there is none. */
export function stepForm(panel, flow, step) {
  const entry = entryOf(panel, flow, step);
  if (entry.state === 'loading') return h('p', { class: 'muted small' }, 'Reading the step…');
  if (entry.state === 'failed')
    return h('p', { class: 'muted small' }, `No form for this step: ${entry.message}`);
  const { draft } = entry;
  const fields = [
    textField(draft, 'say', 'Says'),
    textField(draft, 'question', 'Asks'),
    draft.next === undefined
      ? null
      : h(
          'label',
          { class: 'step-form-field' },
          h('span', {}, 'Next step'),
          h('input', {
            name: 'step-next',
            value: draft.next,
            'aria-label': 'Next step',
            oninput: (event) => {
              draft.next = event.target.value;
            },
          }),
        ),
    draft.buttons
      ? h('div', { class: 'step-form-buttons', 'aria-label': 'Buttons' }, buttonRows(draft))
      : null,
  ];
  const submit = async (event) => {
    event.preventDefault();
    try {
      const saved = await call('POST', '/_editor/step', {
        path: entry.path,
        version: entry.version,
        step,
        form: draft,
      });
      Object.assign(entry, {
        version: saved.version,
        form: structuredClone(draft),
        message: 'Saved to the file.',
      });
      entry.failed = false;
      panel.onFileSaved?.(flow);
    } catch (error) {
      entry.message = error.message;
      entry.failed = true;
    }
    panel.redrawAfterAction();
  };
  const reread = () => {
    panel.stepForms.delete(`${flow}/${step}`);
    panel.refresh();
  };
  return h(
    'form',
    { class: 'step-form', 'aria-label': `Edit step ${step}`, onsubmit: submit },
    h('h4', {}, `Edit step ${step}`),
    fields,
    h(
      'div',
      { class: 'step-form-actions' },
      h(
        'button',
        { type: 'submit', class: 'btn btn-small btn-primary', disabled: !entry.saving },
        'Save step',
      ),
      h('button', { type: 'button', class: 'btn btn-small', onclick: reread }, 'Read again'),
    ),
    entry.message
      ? h('p', { class: entry.failed ? 'error small' : 'muted small', role: 'status' }, entry.message)
      : null,
  );
}

/** The flows were reloaded (a save here or anywhere): forms with nothing typed read their step again. */
export function rereadStepForms(panel) {
  for (const [key, entry] of panel.stepForms ?? []) {
    if (entry.state !== 'ready' || JSON.stringify(entry.draft) !== JSON.stringify(entry.form)) continue;
    const [flow, step] = key.split('/');
    call('GET', `/_editor/step?${new URLSearchParams({ flow, step })}`)
      .then((data) => Object.assign(entry, { ...data, draft: structuredClone(data.form) }))
      .catch(() => panel.stepForms.delete(key))
      .finally(() => panel.refresh());
  }
}
