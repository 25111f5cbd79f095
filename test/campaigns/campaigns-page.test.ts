// The playground's campaigns page: every campaign with its figures, one campaign with its recipients, JSON
// as botflow stats gives it, 404 for an unknown one, 503 before an engine is attached.
import Fastify from 'fastify';
import { afterEach, expect, it } from 'vitest';
import { campaignRoutes } from '../../src/runtime/campaigns-page.ts';
import { Inspector } from '../../src/runtime/inspector.ts';
import { Harness } from '../../src/testing/harness.ts';
import { flows } from './fixtures.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it('shows campaigns, their recipients and funnel', async () => {
  h = await Harness.start({ flows: flows() });
  for (const name of ['ann', 'bob']) await h.act(await h.person(name), { kind: 'start' });
  await h.advance(3_600_000);
  const app = Fastify();
  await app.register(campaignRoutes(() => h!.engine.campaigns));
  const empty = await app.inject({ url: '/_inspector/campaigns' });
  expect(empty.body).toContain('No campaigns yet');

  const c = await h.engine.campaigns.start({ name: 'spring', flow: 'offer', with: { code: 'P' } });
  for (let second = 0; second < 4; second++) await h.advance(1000);
  const page = await app.inject({ url: '/_inspector/campaigns' });
  expect(page.headers['content-type']).toMatch(/text\/html/);
  expect(page.body).toContain(`data-campaign="${c.id}"`);
  expect(page.body).toMatch(/<span class="status done">done<\/span>/);
  const one = await app.inject({ url: '/_inspector/campaigns?id=spring' });
  expect(one.body.match(/data-recipient="/g)).toHaveLength(2);
  const json = (await app.inject({ url: '/_inspector/campaigns?id=spring&format=json' })).json();
  expect(json).toMatchObject({ name: 'spring', byStatus: { sent: 2 }, funnel: { reached: 2 } });
  expect(json.recipients.map((r: { status: string }) => r.status)).toEqual(['sent', 'sent']);
  expect((await app.inject({ url: '/_inspector/campaigns?id=nope' })).statusCode).toBe(404);
  await app.close();

  // Mounted by the playground's inspector: 503 until the engine is attached.
  const inspector = new Inspector();
  const panel = Fastify();
  await panel.register(inspector.plugin);
  expect((await panel.inject({ url: '/_inspector/campaigns' })).statusCode).toBe(503);
  inspector.attach({ engine: h.engine, flows: h.engine.flows.current(), problems: [] });
  expect((await panel.inject({ url: '/_inspector/campaigns?format=json' })).json()).toHaveLength(1);
  inspector.close();
  await panel.close();
});
