/**
 * POST /answers: the bot's answer to a button press. `message` changes the pressed message,
 * `notification` is shown once to the person who pressed; a wrong or used callback_id is answered
 * `{success: false, message}`, not with an error status, as the platform does.
 */
import type { FastifyInstance } from 'fastify';
import { argsOf, bodyOf, strArg } from '../http.ts';
import { applyEdit, messageFields } from '../message-body.ts';
import type { Platform } from '../platform.ts';
import { checkSpec, SpecCallbackAnswer } from '../spec-schemas.ts';

export function registerAnswerRoutes(app: FastifyInstance, p: Platform): void {
  app.post('/answers', { config: { op: 'answerCallback' } }, async (req) => {
    const args = argsOf(req);
    const callbackId = strArg(args, 'callback_id', true);
    const body = checkSpec(SpecCallbackAnswer, bodyOf(req), 'CallbackAnswer');
    const notification = body.notification;
    const cb = p.data.callbacks[callbackId];
    if (!cb) return { success: false, message: `Unknown callback_id: no button press has this id` };
    if (cb.answered) return { success: false, message: 'This callback was already answered' };
    const msg = p.data.messages[cb.mid];
    // Validate the new message fully before anything changes, so a 400 leaves the callback usable.
    const fields =
      body.message !== undefined && body.message !== null
        ? messageFields(p, body.message, 'edit', 'message')
        : undefined;
    if (fields && !msg) return { success: false, message: `The message ${cb.mid} was deleted` };
    cb.answered = true;
    if (fields && msg) applyEdit(p, msg, fields);
    if (notification) {
      // Only displayed next to a message change; alone, clients do not show it (spec, POST /answers).
      const shown = Boolean(fields);
      const note = {
        user_id: cb.user_id,
        chat_id: cb.chat_id,
        mid: cb.mid,
        text: notification,
        timestamp: p.now(),
        shown,
      };
      p.data.notifications.push(note);
      if (p.data.notifications.length > 10_000) p.data.notifications.splice(0, 1000);
      if (shown || p.settings.showNotificationOnlyAnswers) {
        p.feed.emit({
          type: 'notification',
          chat_id: cb.chat_id,
          user_id: cb.user_id,
          text: shown
            ? notification
            : `${notification} (notification-only answer: not shown on the platform)`,
          message_id: cb.mid,
          ...(shown ? {} : { platformHides: true }),
        });
      }
    }
    return fields ? { success: true } : { success: true, message: null };
  });
}
