/**
 * Validators, guards and effects that the example flows name. `botflow check flows` and `loadFlows`
 * pick this file up by its name; pass your own registry to `loadFlows(dir, { registry })` instead.
 */
import { defineRegistry } from '../src/flows/registry.ts';

const SUPPORT_CHAT_ID = process.env.SUPPORT_CHAT_ID ? Number(process.env.SUPPORT_CHAT_ID) : undefined;
const DISPOSABLE_DOMAINS = new Set(['mailinator.com', 'tempmail.dev', 'guerrillamail.com']);

export default defineRegistry({
  validators: {
    /** Refuses throwaway email domains. */
    not_disposable: (value) =>
      !DISPOSABLE_DOMAINS.has(String(value).split('@')[1] ?? '') || 'disposable address',
  },
  guards: {
    /** True when the person chose a language explicitly. */
    has_locale: ({ vars }) => typeof vars.locale === 'string',
  },
  effects: {
    /** Logs the sign-up as a typing action: stands in for a call to your CRM through an API effect. */
    record_signup: () => ({ kind: 'api', op: 'sendAction', args: { action: 'typing_on' } }),
    /** Forwards the request to the support chat (SUPPORT_CHAT_ID, read once at start), or back to the person. */
    notify_support: ({ vars }) => ({
      kind: 'api',
      op: 'sendMessage',
      args: {
        ...(SUPPORT_CHAT_ID ? { chat_id: SUPPORT_CHAT_ID } : {}),
        text: `New support request: ${String(vars.description ?? '')}`.slice(0, 4000),
      },
    }),
  },
});
