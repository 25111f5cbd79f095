// A campaign on a virtual clock moves with the engine's tick, as timers do, on both stores: held through
// its quiet hours, then released at its rate, then done, by advancing the clock only. The runner's own
// round is a day away here, so only tick() can move it.
import { afterEach, describe, expect, it } from 'vitest';
import { botStarted } from '../engine/fixtures.ts';
import { type Conformance, openConformance, type StoreKind } from '../support/engine-conformance.ts';
import { postgresAvailable } from '../support/postgres.ts';
import { flows } from './fixtures.ts';

const up = await postgresAvailable();
const kinds = (['sqlite', 'postgres'] as StoreKind[]).filter((k) => k === 'sqlite' || up);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const PEOPLE = [1, 2, 3];

let h: Conformance | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** How many people have the campaign's message. */
const offered = (c: Conformance) =>
  PEOPLE.filter((id) => c.platform.seen(1000 + id).some((t) => t.startsWith('Spring offer Q'))).length;

describe.each(kinds)('a campaign on a virtual clock over %s', (kind) => {
  it('waits out its quiet hours, then releases at its rate as the clock advances', async () => {
    const c = await open(kind);
    for (const id of PEOPLE) await c.deliver(botStarted(id, c.clock.now()));
    await c.settle();
    await c.advance(HOUR); // 10:00 UTC: the welcome dialogs are no longer under way
    const started = await c.engine.campaigns.start({
      name: 'morning',
      flow: 'offer',
      with: { code: 'Q' },
      rate: '1/min',
      quiet_hours: { from: '10:00', to: '12:00' },
      time_zone: 'UTC',
    });
    expect(started.recipients).toBe(3);
    await c.advance(HOUR);
    expect(offered(c)).toBe(0);
    const held = await c.engine.campaigns.status('morning');
    expect(held.byStatus).toMatchObject({ queued: 3, sent: 0 });

    await c.advance(HOUR); // 12:00: the quiet hours are over; one a minute
    expect(offered(c)).toBe(1);
    await c.advance(MINUTE);
    expect(offered(c)).toBe(2);
    await c.advance(MINUTE);
    expect(offered(c)).toBe(3);
    await c.advance(MINUTE);
    const done = await c.engine.campaigns.status('morning');
    expect(done).toMatchObject({ status: 'done', byStatus: { sent: 3, queued: 0 } });
  });
});

it.skipIf(!up)('releases nothing at the tick of a process that does not send (PostgreSQL)', async () => {
  // Only the dispatcher lease holder runs campaigns; this process never takes that lease.
  h = await openConformance('postgres', flows, { campaignIntervalMs: 24 * HOUR, dispatcher: false });
  for (const id of PEOPLE) await h.deliver(botStarted(id, h.clock.now()));
  await h.advance(HOUR);
  await h.engine.campaigns.start({ name: 'elsewhere', flow: 'offer', with: { code: 'Q' }, rate: '25/s' });
  for (let second = 0; second < 5; second++) await h.advance(1000);
  const status = await h.engine.campaigns.status('elsewhere');
  expect(status.byStatus).toMatchObject({ queued: 3, released: 0, sent: 0 });
});

async function open(kind: StoreKind): Promise<Conformance> {
  h = await openConformance(kind, flows, { campaignIntervalMs: 24 * HOUR });
  return h;
}
