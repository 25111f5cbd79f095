/** The support example's code (flows/support.flow.yaml): the effect that forwards a request. */
import type { EffectFactory } from '../../src/flows/registry.ts';

const SUPPORT_CHAT_ID = process.env.SUPPORT_CHAT_ID ? Number(process.env.SUPPORT_CHAT_ID) : undefined;

/** Forwards the request to the support chat (SUPPORT_CHAT_ID, read once at start), or back to the person. */
const notifySupport: EffectFactory = ({ vars }) => ({
  kind: 'api',
  op: 'sendMessage',
  args: {
    ...(SUPPORT_CHAT_ID ? { chat_id: SUPPORT_CHAT_ID } : {}),
    text: `New support request: ${String(vars.description ?? '')}`.slice(0, 4000),
  },
});

export default { effects: { notify_support: notifySupport } };
