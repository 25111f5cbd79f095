// The side panel's "Tasks" section: what the step's tasks (the team's own code) are doing.
import { h, panelSection as section } from './dom.js';

/** A context value or a task's input or result, as one line. */
export function valueText(value) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/**
 * What the step's tasks (the team's own code) are doing: running, waiting to retry, done or failed; how
 * many attempts each took, and the error of its last failed attempt.
 */
export function tasksSection(tasks) {
  const state = (t) =>
    t.status === 'running'
      ? `running (attempt ${t.attempts})`
      : t.status === 'pending'
        ? t.attempts > 0
          ? 'waiting to try again'
          : 'waiting to start'
        : t.status === 'failed'
          ? `failed: ${t.error?.code ?? 'error'}`
          : t.status;
  const attempts = (t) =>
    t.status === 'pending' || t.status === 'running' ? `${t.attempts} so far` : String(t.attempts);
  return section(
    `Tasks (${tasks.length})`,
    h(
      'ol',
      { class: 'tasks' },
      tasks.map((t) =>
        h(
          'li',
          { class: `task task-${t.status}` },
          h('strong', {}, t.name),
          h('span', { class: 'task-state' }, ` ${state(t)}`),
          h('div', { class: 'small' }, h('span', { class: 'muted' }, 'input '), valueText(t.input)),
          t.attempts > 0
            ? h(
                'div',
                { class: 'small task-attempts' },
                h('span', { class: 'muted' }, 'attempts '),
                attempts(t),
              )
            : null,
          t.status === 'done'
            ? h('div', { class: 'small' }, h('span', { class: 'muted' }, 'result '), valueText(t.result))
            : null,
          t.error
            ? h(
                'div',
                { class: 'ev-error task-error' },
                t.status === 'failed' || t.status === 'cancelled'
                  ? null
                  : h('span', { class: 'muted' }, 'last failed attempt '),
                `${t.error.code}: ${t.error.message}`,
              )
            : null,
        ),
      ),
    ),
  );
}
