/**
 * The sandbox's local pages and APIs (the playground, `/_sandbox/`, `/_inspector/`, uploaded files) have
 * no authentication: they are for the person at this machine. Two guards keep other sites out:
 * - the Host header must name this machine (an IP address, `localhost`, or a name the sandbox was given),
 *   so that a page elsewhere cannot reach them through DNS rebinding;
 * - uploaded files are served with `nosniff`, a sandboxing CSP, and as attachments unless they are
 *   raster images, so that an uploaded HTML or SVG file cannot run in the playground's origin.
 */
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Paths only people at this machine use. The Bot API and the upload host are not among them. */
const LOCAL = /^\/(?:$|\?|_sandbox(?:\/|$|\?)|_inspector(?:\/|$|\?)|_web\/|_files\/)/;

/** Whether `hostname` (from the Host header, without the port) names this machine. */
export function hostAllowed(hostname: string, allowed: readonly string[] = []): boolean {
  const name = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(name) !== 0) return true; // an address cannot be rebound
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return allowed.some((a) => a.toLowerCase() === name);
}

/** Refuses requests for the local paths whose Host names another site. */
export function guardLocalRoutes(app: FastifyInstance, allowedHosts: readonly string[]): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!LOCAL.test(request.url)) return;
    const host = request.hostname;
    if (hostAllowed(host, allowedHosts)) return;
    return reply.code(403).send({
      code: 'host.not.allowed',
      message:
        `Host "${host.slice(0, 100)}" is not this machine: the sandbox's pages answer only to localhost, ` +
        'an IP address or a name given in allowedHosts (a guard against DNS rebinding). ' +
        'Open them as http://localhost:<port>/.',
    });
  });
}

const INLINE_TYPES = /^image\/(png|jpe?g|gif|webp|bmp|avif)$/i;

/** Headers that keep an uploaded file from running as a page of the sandbox's origin. */
export function serveUploadedFile(
  reply: FastifyReply,
  contentType: string,
  filename: string | undefined,
): void {
  reply.type(contentType);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('content-security-policy', "sandbox; default-src 'none'");
  if (!INLINE_TYPES.test(contentType)) {
    const name = (filename ?? 'file').replace(/[^\w.-]+/g, '_').slice(0, 100);
    reply.header('content-disposition', `attachment; filename="${name}"`);
  }
}

/** The warning for a sandbox listening beyond this machine; undefined for a loopback interface. */
export function exposureWarning(host: string): string | undefined {
  if (host === 'localhost' || host === '::1' || host.startsWith('127.')) return undefined;
  return (
    `the sandbox listens on ${host}: its playground and control API have no authentication, so anyone who ` +
    'can reach this address can act as any person and read every conversation; listen on 127.0.0.1 unless that is what you want'
  );
}
