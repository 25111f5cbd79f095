/** The sign-up example's code (flows/signup.flow.yaml): a validator and an effect. */
import type { EffectFactory, Validator } from '../../src/flows/registry.ts';

const DISPOSABLE_DOMAINS = new Set(['mailinator.com', 'tempmail.dev', 'guerrillamail.com']);

/** Refuses throwaway email domains. */
const notDisposable: Validator = (value) =>
  !DISPOSABLE_DOMAINS.has(String(value).split('@')[1] ?? '') || 'disposable address';

/** Logs the sign-up as a typing action: stands in for a call to your CRM through an API effect. */
const recordSignup: EffectFactory = () => ({ kind: 'api', op: 'sendAction', args: { action: 'typing_on' } });

export default { validators: { not_disposable: notDisposable }, effects: { record_signup: recordSignup } };
