/**
 * The code your flows name: validators (`rule: <name>` in a step's `validate`), guards (`when: { guard:
 * <name> }`), effects (`do: [{ effect: <name> }]`) and tasks (`do: [{ task: <name> }]`: your systems,
 * called while the person sees "typing…"). botflow loads this file by its name.
 */
import { defineRegistry, defineTask, TaskError } from 'botflow-engine';
import { z } from 'zod';

/**
 * Files the feedback with your systems and returns its ticket. This one stands in for them offline and
 * answers the same every time, so `npm start` and the transcripts need no network; a real one would POST
 * to your helpdesk with `ctx.idempotencyKey` (the same on every retry, so nothing is filed twice) and
 * `ctx.signal` (aborted at the flow's `timeout`). A `TaskError` code picks the flow's `on_error` route;
 * any other error takes the route without a code.
 */
const fileFeedback = defineTask({
  input: z.object({ name: z.string(), rating: z.enum(['great', 'fine', 'poor']), comment: z.string() }),
  result: z.object({ ticket: z.string() }),
  async run({ name, rating, comment }, { signal }) {
    signal.throwIfAborted();
    if (/\bhttps?:\/\//i.test(comment)) throw new TaskError('has_link', 'the helpdesk refuses links');
    const sum = [...`${name}|${rating}|${comment}`].reduce((n, c) => (n * 31 + c.charCodeAt(0)) % 9000, 0);
    return { ticket: `F-${1000 + sum}` };
  },
});

export default defineRegistry({
  validators: {
    /** Refuses answers that are only digits: a name is not a number. */
    not_a_number: (value) => !/^\s*\d+\s*$/.test(String(value)) || 'a number is not a name',
  },
  guards: {},
  effects: {},
  tasks: { file_feedback: fileFeedback },
});
