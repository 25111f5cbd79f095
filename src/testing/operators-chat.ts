/**
 * The operators' chats of the flows under test (docs/handoff.md), made in the sandbox: a group chat with
 * the id each flow's `handoff: { operators_chat }` names, an operator as its owner and the bot a member, so
 * that a handoff step's requests and relayed messages have somewhere to go.
 */
import type { FlowDefinition } from '../engine/step/contract.ts';
import type { SandboxControl } from '../sandbox/control-client.ts';

/** Creates the operators' chats `flows` name (each once); returns their ids. */
export async function openOperatorsChats(
  control: SandboxControl,
  flows: readonly FlowDefinition[],
): Promise<number[]> {
  const ids = [...new Set(flows.flatMap((f) => (f.handoff ? [f.handoff.operatorsChat] : [])))];
  for (const chat_id of ids) {
    const owner = await control.createUser({ first_name: 'Operator' });
    await control.createChat({ chat_id, owner_id: owner.user_id, title: 'Operators', with_bot: true });
  }
  return ids;
}
