/**
 * The code your flows name: validators (`rule: <name>` in a step's `validate`), guards (`when: { guard:
 * <name> }`) and effects (`do: [{ effect: <name> }]`). botflow loads this file by its name.
 */
import { defineRegistry } from 'botflow-engine';

export default defineRegistry({
  validators: {
    /** Refuses answers that are only digits: a name is not a number. */
    not_a_number: (value) => !/^\s*\d+\s*$/.test(String(value)) || 'a number is not a name',
  },
  guards: {},
  effects: {},
});
