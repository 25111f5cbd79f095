/**
 * The argument and result types catch mistakes at compile time (`npm run typecheck` checks the
 * `@ts-expect-error` lines below: each must be an error, or the type check fails).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { BotApi } from '../../src/client/client.ts';
import type { ButtonInput, OperationArgs, OperationResult } from '../../src/client/operation-types.ts';
import type { Update } from '../../src/client/schemas/updates.ts';

// Never called: only type-checked.
function compileTimeChecks(api: BotApi) {
  api.sendMessage({ chat_id: 1, text: 'ok' });
  api.sendMessage({ user_id: 1, text: 'ok', format: 'html', notify: false });
  // @ts-expect-error two targets
  api.sendMessage({ chat_id: 1, user_id: 2, text: 'x' });
  // @ts-expect-error no target
  api.sendMessage({ text: 'x' });
  // @ts-expect-error misspelt argument
  api.pinMessage({ chat_id: 1, message_id: 'm', notfy: true });
  const keyboard = (buttons: ButtonInput[][]) => ({ type: 'inline_keyboard' as const, payload: { buttons } });
  // @ts-expect-error unknown button type
  keyboard([[{ type: 'cb', text: 'a' }]]);
  // @ts-expect-error callback button without payload
  keyboard([[{ type: 'callback', text: 'a' }]]);
  api.sendMessage({ chat_id: 1, attachments: [keyboard([[{ type: 'callback', text: 'a', payload: 'p' }]])] });
  // @ts-expect-error answerCallbackResult needs a message
  api.answerCallbackResult({ callback_id: 'c', notification: 'n' });
  // @ts-expect-error no such operation
  api.call('getChats', {});
  // @ts-expect-error getMessages takes chat_id or message_ids, not both
  api.getMessages({ chat_id: 1, message_ids: ['m'] });
  // @ts-expect-error upload kinds are image, video, audio, file
  api.getUploadUrl({ type: 'photo' });
}

describe('types', () => {
  it('results are the decoded schema types', () => {
    expectTypeOf(compileTimeChecks).toBeFunction();
    expectTypeOf<OperationResult<'sendMessage'>['message']['body']['mid']>().toEqualTypeOf<string>();
    expectTypeOf<OperationResult<'getUpdates'>['updates']>().toEqualTypeOf<Update[]>();
    expectTypeOf<OperationResult<'answerCallback'>['success']>().toEqualTypeOf<boolean>();
    expectTypeOf<OperationArgs<'editMessage'>['message_id']>().toEqualTypeOf<string>();
  });
});

describe('permission names', () => {
  it('are the same in the client and in the sandbox (each keeps its own list, from the spec)', async () => {
    const { ASSIGNABLE_PERMISSIONS } = await import('../../src/client/schemas/objects.ts');
    const { ASSIGNABLE } = await import('../../src/sandbox/state.ts');
    expect([...ASSIGNABLE_PERMISSIONS].sort()).toEqual([...ASSIGNABLE].sort());
  });
});
