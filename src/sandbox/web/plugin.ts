/**
 * `webChatPlugin()`: serves the web chat playground (a page, a stylesheet and a few ES modules, no build
 * step, nothing from the internet) on the sandbox's fastify app. The page acts as people through the
 * sandbox's `/_sandbox/` control API and follows `/_sandbox/events`; when an inspector is mounted beside it
 * (see src/runtime/inspector.ts) its side panel shows the selected conversation's flow, step and history.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyPluginAsync } from 'fastify';
import { BotflowError } from '../../errors/index.ts';

/** Where the page is served. */
export interface WebChatOptions {
  /** Path of the page; default `/` (the sandbox's Bot API has no route there). */
  path?: string;
}

/** URL path under which the page's assets are served. */
export const WEB_ASSETS_PATH = '/_web';

const ASSETS_DIR = new URL('./assets/', import.meta.url);

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** One asset held in memory (the page is a few tens of kilobytes; the editor's bundle a few hundred). */
interface Asset {
  body: Buffer;
  type: string;
  /** The body gzipped, for the big ones (the editor's bundle), sent to browsers that accept it. */
  gzipped?: Buffer;
}

/** Assets from this size on are also kept gzipped. */
const GZIP_FROM_BYTES = 32 * 1024;

/** Reads the page's files once; only names listed here are ever served, so no path can escape the folder. */
function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(ASSETS_DIR)) {
    const type = CONTENT_TYPES[extname(name)];
    if (!type) continue;
    const body = readFileSync(new URL(name, ASSETS_DIR));
    assets.set(name, { body, type, ...(body.length >= GZIP_FROM_BYTES ? { gzipped: gzipSync(body) } : {}) });
  }
  return assets;
}

/** The fastify plugin that serves the playground page and its assets. */
export function webChatPlugin(options: WebChatOptions = {}): FastifyPluginAsync {
  const pagePath = options.path ?? '/';
  return async (app) => {
    const assets = loadAssets();
    const page = assets.get('index.html');
    if (!page)
      throw new BotflowError(
        'BOTFLOW_SANDBOX_ASSETS_MISSING',
        `the web chat page is missing from ${ASSETS_DIR.pathname}: install botflow-engine again (npm install), or run npm run build in a checkout`,
      );
    app.get(pagePath, async (_req, reply) =>
      reply.type(page.type).header('cache-control', 'no-cache').send(page.body),
    );
    app.get(`${WEB_ASSETS_PATH}/:name`, async (req, reply) => {
      const asset = assets.get((req.params as { name: string }).name);
      if (!asset) {
        return reply
          .code(404)
          .send({ code: 'not.found', message: `No such asset of the web chat: ${req.url.split('?')[0]}` });
      }
      reply.type(asset.type).header('cache-control', 'no-cache');
      if (asset.gzipped) {
        reply.header('vary', 'accept-encoding');
        if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')))
          return reply.header('content-encoding', 'gzip').send(asset.gzipped);
      }
      return reply.send(asset.body);
    });
  };
}
