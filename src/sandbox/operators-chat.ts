/**
 * The operators' chats of the flows (docs/handoff.md), made in the sandbox (transcripts, the playground): a group chat with
 * the id each flow's `handoff: { operators_chat }` names, an operator as its owner and the bot a member, so
 * that a handoff step's requests and relayed messages have somewhere to go.
 */
import type { SandboxControl } from './control-client.ts';

/** Creates the operators' chats among `chats` that the sandbox lacks; returns the ids. */
export async function openOperatorsChats(
  control: SandboxControl,
  chats: Iterable<number>,
): Promise<number[]> {
  const ids = [...new Set(chats)];
  for (const chat_id of ids) {
    if (
      await control.chat(chat_id).then(
        () => true,
        () => false,
      )
    )
      continue; // made before (a sandbox that keeps its state)
    const owner = await control.createUser({ first_name: 'Operator' });
    await control.createChat({ chat_id, owner_id: owner.user_id, title: 'Operators', with_bot: true });
  }
  return ids;
}
