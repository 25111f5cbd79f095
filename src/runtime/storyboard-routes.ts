/**
 * `GET /_inspector/storyboard[?flow=<id>][&download]`: the storyboard page of the flows the playground
 * serves (runtime/storyboard.ts), one flow or all; with `download` it comes as a file to keep or send.
 * Boards are built on first request and kept per flow version.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { buildStoryboard, type Storyboard, storyboardHtml } from './storyboard.ts';

/** The answer of a playground page asked for a flow it does not have. */
export function flowNotFound(
  id: string,
  flows: readonly FlowDefinition[],
): { code: 'flow.not.found'; message: string } {
  const known = flows.map((f) => f.id).join(', ') || 'none is loaded';
  return { code: 'flow.not.found', message: `no flow "${id}" here (flows: ${known})` };
}

export function storyboardRoutes(flows: () => readonly FlowDefinition[]): FastifyPluginAsync {
  const built = new Map<string, Storyboard>();
  const boardOf = (flow: FlowDefinition) => {
    const key = `${flow.id}@${flow.version}`;
    let board = built.get(key);
    if (!board) {
      board = buildStoryboard(flow);
      built.set(key, board);
    }
    return board;
  };
  return async (app) => {
    app.get('/_inspector/storyboard', async (req, reply) => {
      const { flow: id, download } = req.query as { flow?: string; download?: string };
      const chosen = id ? flows().filter((f) => f.id === id) : flows();
      if (chosen.length === 0) return reply.code(404).send(flowNotFound(id ?? '', flows()));
      const title = id ? `${id}: storyboard` : 'storyboard';
      const boards = chosen.map(boardOf);
      if (download !== undefined) {
        const name = (id ?? 'flows').replace(/[^\w.-]/g, '_');
        reply.header('content-disposition', `attachment; filename="${name}.storyboard.html"`);
        return reply.type('text/html; charset=utf-8').send(storyboardHtml(boards, title));
      }
      const downloadHref = `/_inspector/storyboard?${id ? `flow=${encodeURIComponent(id)}&` : ''}download`;
      return reply.type('text/html; charset=utf-8').send(storyboardHtml(boards, title, { downloadHref }));
    });
  };
}
