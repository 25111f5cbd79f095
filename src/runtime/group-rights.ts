/**
 * Flows that read every message of a group chat (`group_messages: all`) need the bot to have the admin
 * right `read_all_messages` there: without it the platform sends only commands, mentions of the bot and
 * replies to it, and such a flow waits for answers that never come. When a conversation of such a flow
 * runs in a group, the bot's rights in that chat are looked up once (through the scheduler, within the
 * platform's limits) and a missing right is logged with what to do.
 */
import type { Logger } from 'pino';
import type { Job } from '../client/scheduler/types.ts';
import type { Engine } from '../engine/engine.ts';

/** Starts watching; returns the function that stops it. */
export function watchGroupRights(
  engine: Pick<Engine, 'on' | 'flows'>,
  gateway: { submit(job: Job): Promise<unknown> },
  logger: Logger,
): () => void {
  const checked = new Set<number>();
  return engine.on('step', (outcome) => {
    const key = outcome.conversationKey;
    const flowId = outcome.session?.flowId;
    const group = key ? /^c:(-?\d+)/.exec(key) : null;
    if (!group || !flowId || engine.flows.latest(flowId)?.groupMessages !== 'all') return;
    const chatId = Number(group[1]);
    if (checked.has(chatId)) return;
    checked.add(chatId);
    gateway
      .submit({ op: 'getMembership', args: { chat_id: chatId } } as Job)
      .then((member) => {
        const m = member as { is_owner?: boolean; permissions?: string[] | null };
        if (m.is_owner || m.permissions?.includes('read_all_messages')) return;
        logger.warn(
          { chat: chatId, flow: flowId },
          `flow "${flowId}" reads every message in group chats (group_messages: all), but the bot may not read all messages in chat ${chatId}: people's plain answers will not reach it. Make the bot an admin there with "read_all_messages", or write the flow for commands, mentions and replies (group_messages: addressed)`,
        );
      })
      .catch((error: unknown) => {
        checked.delete(chatId); // try again with the chat's next step
        logger.debug({ chat: chatId, err: error }, 'could not read the bot rights in a group chat');
      });
  });
}
