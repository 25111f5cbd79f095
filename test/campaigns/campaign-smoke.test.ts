// A campaign end to end on the harness (sandbox, SQLite, virtual clock): tags and variables flows set
// select people; the campaign's flow starts for them with bulk calls; stopped people and people mid-dialog
// are skipped; pause, resume and cancel hold; the funnel counts answers and ends.
import { afterEach, describe, expect, it } from 'vitest';
import { Harness } from '../../src/testing/harness.ts';
import { flows } from './fixtures.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Lets `seconds` pass on the virtual clock: the engine's tick releases the campaigns' recipients due. */
async function run(h: Harness, seconds: number): Promise<void> {
  for (let i = 0; i < seconds; i++) await h.advance(1000);
}

describe('a campaign on the harness', () => {
  it('reaches the segment, skips who stopped the bot and who is mid-dialog, and counts the funnel', async () => {
    h = await Harness.start({ flows: flows() });
    const people = [];
    for (const name of ['ann', 'bob', 'cat', 'dan', 'eve']) {
      const p = await h.person(name);
      await h.act(p, { kind: 'start', payload: name === 'eve' ? 'pro' : 'basic' });
      people.push(p);
    }
    const [ann, bob, cat, dan] = people as [
      (typeof people)[0],
      (typeof people)[0],
      (typeof people)[0],
      (typeof people)[0],
    ];
    // ann finishes the welcome (tag signed_up, member removed); bob stops the bot; cat stays mid-dialog.
    await h.act(ann, { kind: 'say', text: 'gold' });
    await h.act(bob, { kind: 'stop' });
    await h.advance(3_600_000);
    await h.act(cat, { kind: 'say', text: 'x' }); // finishes too, then talks again below
    await h.act(cat, { kind: 'start' });

    const plan = await h.engine.campaigns.plan({
      flow: 'offer',
      segment: { where: { tags: { any: ['member', 'signed_up'] } } },
    });
    // ann, cat (signed up), dan, eve (members); bob left.
    expect(plan.count).toBe(4);
    expect(plan.sample.map((p) => p.conversationKey)).not.toContain(`u:${bob.userId}`);

    const byVar = await h.engine.campaigns.plan({
      flow: 'offer',
      segment: { where: { vars: { plan: 'pro' } } },
    });
    expect(byVar.count).toBe(1);

    const started = await h.engine.campaigns.start({
      name: 'spring',
      flow: 'offer',
      with: { code: 'S26' },
      rate: '2/s',
      segment: { where: { tags: { any: ['member', 'signed_up'] } } },
    });
    expect(started.recipients).toBe(4);
    await expect(h.engine.campaigns.start({ name: 'spring', flow: 'offer' })).rejects.toMatchObject({
      code: 'BOTFLOW_CAMPAIGN_STATE',
    });
    await run(h, 5);
    const status = await h.engine.campaigns.status('spring');
    // cat restarted the welcome a moment ago: mid-dialog, skipped.
    expect(status.byStatus).toMatchObject({ sent: 3, skipped: 1, queued: 0 });
    expect(status.reasons).toEqual({ busy: 1 });
    const sent = h.db
      .prepare(
        "SELECT conversation_key AS k, priority, args FROM outbox WHERE args LIKE '%Spring offer S26%'",
      )
      .all() as { k: string; priority: string }[];
    expect(sent.map((r) => r.k).sort()).toEqual([ann, dan, people[4]!].map((p) => `u:${p.userId}`).sort());
    expect(new Set(sent.map((r) => r.priority))).toEqual(new Set(['bulk']));

    await h.act(ann, { kind: 'say', text: 'yes' });
    const tags = h.db
      .prepare('SELECT tag FROM person_tags WHERE conversation_key = ? ORDER BY tag')
      .all(`u:${ann.userId}`);
    expect(tags).toEqual([{ tag: 'offer_answered' }, { tag: 'signed_up' }]);
    const after = await h.engine.campaigns.status('spring');
    expect(after.funnel).toEqual({ reached: 3, started: 1, finished: 1 });
    await run(h, 1);
    expect((await h.engine.campaigns.status('spring')).status).toBe('done');
  });

  it('pauses, resumes and cancels durably', async () => {
    h = await Harness.start({ flows: flows() });
    for (let i = 0; i < 6; i++) await h.act(await h.person(`p${i}`), { kind: 'start' });
    await h.advance(3_600_000);
    const c = await h.engine.campaigns.start(
      { flow: 'offer', rate: '1/s', with: { code: 'X' } },
      { name: 'slow' },
    );
    await run(h, 2);
    const paused = await h.engine.campaigns.pause(c.id);
    expect(paused.status).toBe('paused');
    const sentAtPause = paused.byStatus.sent;
    expect(sentAtPause).toBeGreaterThan(0);
    await run(h, 5);
    expect((await h.engine.campaigns.status('slow')).byStatus.sent).toBe(sentAtPause);
    await h.engine.campaigns.resume('slow');
    await run(h, 1);
    const cancelled = await h.engine.campaigns.cancel('slow');
    expect(cancelled.byStatus.sent).toBeGreaterThan(sentAtPause);
    await run(h, 5);
    const end = await h.engine.campaigns.status('slow');
    expect(end.status).toBe('cancelled');
    expect(end.byStatus.sent).toBe(cancelled.byStatus.sent);
    expect(end.byStatus.queued).toBeGreaterThan(0);
    await expect(h.engine.campaigns.resume('slow')).rejects.toMatchObject({ code: 'BOTFLOW_CAMPAIGN_STATE' });
    await expect(h.engine.campaigns.status('nope')).rejects.toMatchObject({
      code: 'BOTFLOW_CAMPAIGN_NOT_FOUND',
    });
  });
});
