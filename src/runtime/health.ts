/**
 * Health checks for load balancers and orchestrators: `GET /healthz` (liveness: the process's loop runs;
 * restart it when this fails) and `GET /readyz` (readiness: it takes part; send it traffic). Both answer
 * JSON with what the process is doing (its role among several on PostgreSQL), 200 or 503. Served on the
 * webhook receiver's port in webhook mode and on `health.port` when set.
 */
import Fastify, { type FastifyPluginCallback } from 'fastify';

/** What the checks ask the running bot. */
export interface HealthProbe {
  alive(): boolean;
  ready(): boolean;
  /** Shown in both answers (role, partitions, dispatcher…). */
  details(): Record<string, unknown>;
}

/** The two routes, for any fastify app. */
export function healthRoutes(probe: HealthProbe): FastifyPluginCallback {
  return (app, _options, done) => {
    app.get('/healthz', async (_request, reply) => {
      const ok = probe.alive();
      return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'failing', ...probe.details() });
    });
    app.get('/readyz', async (_request, reply) => {
      const ok = probe.alive() && probe.ready();
      return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'not ready', ...probe.details() });
    });
    done();
  };
}

/** A listener of its own for the two routes (`health.port`); resolves with its address and `close`. */
export async function startHealthServer(options: {
  host: string;
  port: number;
  probe: HealthProbe;
}): Promise<{ address: string; close(): Promise<void> }> {
  const app = Fastify();
  app.register(healthRoutes(options.probe));
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { address: `http://${options.host}:${port}`, close: () => app.close() };
}
