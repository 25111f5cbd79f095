/** Comments on channel posts, under /messages/{messageId}/comments (paths as API-NOTES gives them). */
import type { FastifyInstance } from 'fastify';
import { NewCommentBody, TEXT_MAX } from '../../client/schemas/index.ts';
import { accessDenied, badRequest, notFound } from '../errors.ts';
import { argsOf, bodyOf, decodeBody, intArg, listArg, strArg } from '../http.ts';
import { messageId, seqNumber } from '../ids.ts';
import type { Platform } from '../platform.ts';
import type { CommentRecord, MessageRecord } from '../state.ts';
import { commentView } from '../views.ts';
import { visibleMessage } from './messages.ts';

/** The channel post of a `:message_id` path parameter. */
function postOf(p: Platform, params: unknown): MessageRecord {
  const post = visibleMessage(p, String((params as { message_id: string }).message_id));
  if (p.chat(post.chat_id).type !== 'channel')
    throw badRequest(`Message ${post.mid} is not a channel post: only posts have comments`);
  return post;
}

function commentOf(p: Platform, post: MessageRecord, id: string): CommentRecord {
  const c = p.data.comments[id];
  if (!c || c.post_mid !== post.mid) throw notFound(`Comment ${id} not found under post ${post.mid}`);
  return c;
}

/** Stores a new comment (used by the bot's POST and by people's comments). */
export function addComment(
  p: Platform,
  post: MessageRecord,
  senderId: number,
  text: string,
  link?: CommentRecord['link'],
): CommentRecord {
  const n = ++p.data.counters.message;
  const c: CommentRecord = {
    comment_id: messageId(post.chat_id, n),
    seq: seqNumber(n),
    post_mid: post.mid,
    chat_id: post.chat_id,
    sender_id: senderId,
    timestamp: p.now(),
    text,
    ...(link ? { link } : {}),
  };
  p.data.comments[c.comment_id] = c;
  commentsChanged(p, c);
  return c;
}

/** Tells people that the comments under a post changed. */
export function commentsChanged(p: Platform, c: CommentRecord): void {
  p.feed.emit({ type: 'comments.changed', chat_id: c.chat_id, post_id: c.post_mid });
}

function commentText(raw: unknown): { text: string; link?: { type: string; mid: string } } {
  const body = decodeBody(NewCommentBody, raw, 'NewCommentBody');
  if (!body.text) throw badRequest('NewCommentBody.text: a comment needs text');
  if (body.text.length > TEXT_MAX) throw badRequest(`NewCommentBody.text: at most ${TEXT_MAX} characters`);
  return { text: body.text, ...(body.link ? { link: { type: body.link.type, mid: body.link.mid } } : {}) };
}

export function registerCommentRoutes(app: FastifyInstance, p: Platform): void {
  app.get('/messages/:message_id/comments', { config: { op: 'getComments' } }, async (req) => {
    const post = postOf(p, req.params);
    const args = argsOf(req);
    const count = intArg(args, 'count') ?? 50;
    if (count < 1 || count > 100) throw badRequest('Parameter "count" must be 1..100');
    const ids = listArg(args, 'comment_ids');
    const before = intArg(args, 'before');
    const after = intArg(args, 'after');
    let list = Object.values(p.data.comments).filter((c) => c.post_mid === post.mid);
    if (ids) list = list.filter((c) => ids.includes(c.comment_id));
    list = list.filter(
      (c) => (before === undefined || c.timestamp < before) && (after === undefined || c.timestamp > after),
    );
    list.sort((a, b) => a.seq - b.seq);
    const page = list.slice(-count);
    return { messages: page.map((c) => commentView(p.data, c)) };
  });

  app.get('/messages/:message_id/comments/:comment_id', { config: { op: 'getComment' } }, async (req) => {
    const post = postOf(p, req.params);
    return commentView(p.data, commentOf(p, post, String((req.params as { comment_id: string }).comment_id)));
  });

  app.post('/messages/:message_id/comments', { config: { op: 'sendComment' } }, async (req) => {
    const post = postOf(p, req.params);
    const { text, link } = commentText(bodyOf(req));
    const c = addComment(p, post, p.botId, text, link);
    return { message: commentView(p.data, c) };
  });

  app.put('/messages/:message_id/comments', { config: { op: 'editComment' } }, async (req) => {
    const post = postOf(p, req.params);
    const c = commentOf(p, post, strArg(argsOf(req), 'comment_id', true));
    if (c.sender_id !== p.botId) throw accessDenied('The bot can edit only its own comments');
    const body = { ...bodyOf(req) };
    delete body.comment_id;
    c.text = commentText(body).text;
    commentsChanged(p, c);
    return { success: true };
  });

  app.delete('/messages/:message_id/comments', { config: { op: 'deleteComment' } }, async (req) => {
    const post = postOf(p, req.params);
    const c = commentOf(p, post, strArg(argsOf(req), 'comment_id', true));
    if (c.sender_id !== p.botId)
      p.requireBotRight(p.chat(c.chat_id), 'delete', "delete other people's comments");
    delete p.data.comments[c.comment_id];
    commentsChanged(p, c);
    return { success: true };
  });
}
