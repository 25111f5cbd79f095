/**
 * Validators, guards, effects and tasks that the example flows name. `botflow check flows` and `loadFlows`
 * pick this file up by its name; pass your own registry to `loadFlows(dir, { registry })` instead. Each
 * example's code is a part in flows/code/ (`botflow init --example <name>` copies the parts it needs).
 */
import { defineRegistry } from '../src/flows/registry.ts';
import booking from './code/booking.ts';
import rating from './code/rating.ts';
import signup from './code/signup.ts';
import support from './code/support.ts';

export default defineRegistry({
  validators: { ...signup.validators },
  guards: {
    /** True when the person chose a language explicitly. */
    has_locale: ({ vars }) => typeof vars.locale === 'string',
  },
  effects: { ...signup.effects, ...support.effects },
  tasks: { ...booking.tasks },
  // A kind of step of the project's own: `type: rating` (flows/rate_us.flow.yaml).
  kinds: [...rating.kinds],
});
