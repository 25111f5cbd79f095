// The goal for campaigns (campaign-10k.e2e.test.ts runs it with 10,000 people; campaign-rules.test.ts
// with a few hundred in the default suite), on the sandbox and the virtual clock: a campaign of 10,000 people
// (CAMPAIGN_PEOPLE to try another size) respects quiet hours in each person's time zone, the frequency cap
// across campaigns, and never messages someone who stopped the bot (before the start, or after it while
// they waited in line); nobody gets the campaign twice. The people are made in the sandbox (their dialogs
// exist there, so every send really reaches it) and their sessions are written directly: only the
// campaign's own traffic runs through the engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localTimeOfDay } from '../../src/engine/campaigns/quiet-hours.ts';
import { HARNESS_EPOCH, Harness } from '../../src/testing/harness.ts';
import { flows } from './fixtures.ts';

const DAY = 86_400_000;
const ZONES = ['Asia/Tokyo', 'America/New_York', 'Europe/Paris'];

/** The campaign rules on `N` people (CAMPAIGN_PEOPLE overrides). */
export function campaignAtScale(people_: number): void {
  const N = Number(process.env.CAMPAIGN_PEOPLE ?? people_);
  let h: Harness;
  const people: { key: string; userId: number; zone: string }[] = [];

  async function inject(url: string, payload: object): Promise<Record<string, unknown>> {
    const res = await h.sandbox.app.inject({ method: 'POST', url, payload });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    return res.json() as Record<string, unknown>;
  }

  beforeAll(async () => {
    h = await Harness.start({ flows: flows() });
    const insert = h.db.prepare(
      'INSERT INTO sessions (conversation_key, flow_id, flow_version, status, state_value, snapshot, revision, ' +
        "step_instance, started_revision, chat_id, user_id, locale, started_at, updated_at) VALUES (?, 'welcome', ?, 'done', " +
        "'\"done\"', ?, 3, 3, 1, ?, ?, 'en', ?, ?)",
    );
    const version = h.engine.flows.latest('welcome')!.version;
    const made: [string, number, number, string][] = [];
    for (let i = 0; i < N; i++) {
      const user = await inject('/_sandbox/users', { first_name: `P${i}` });
      const userId = Number(user.user_id);
      const { chat_id } = await inject('/_sandbox/start', { user_id: userId });
      made.push([`u:${userId}`, userId, Number(chat_id), ZONES[i % ZONES.length]!]);
    }
    h.db.prepare("DELETE FROM inbox WHERE status = 'pending'").run(); // their bot_started: the sessions below stand for them
    h.db.transaction(() => {
      for (const [key, userId, chatId, zone] of made) {
        const snapshot = JSON.stringify({
          status: 'done',
          value: 'done',
          context: { vars: { time_zone: zone }, retries: 0 },
        });
        insert.run(key, version, snapshot, chatId, userId, h.now - DAY, h.now - DAY);
        people.push({ key, userId, zone });
      }
    })();
  }, 600_000);
  afterAll(async () => {
    await h?.close();
  });

  /**
   * Advances the virtual clock until the campaign is done: a second at a time while recipients are due (the
   * engine's tick releases them), else straight to the end of the next quiet span.
   */
  async function runUntilDone(id: string): Promise<void> {
    for (let round = 0; round < 100_000; round++) {
      if (h.db.prepare('SELECT status FROM campaigns WHERE id = ?').pluck().get(id) === 'done') return;
      const next = h.db
        .prepare(
          "SELECT min(not_before) AS at FROM campaign_recipients WHERE campaign_id = ? AND status = 'queued'",
        )
        .get(id) as { at: number | null };
      await h.advance(Math.max(1000, (next.at ?? h.now) - h.now));
    }
    throw new Error('the campaign did not finish');
  }

  describe(`a campaign of ${N} people on the virtual clock`, () => {
    it('respects quiet hours, the cap and stopped people, and messages nobody twice', async () => {
      // A tenth got an earlier campaign's message two days ago: the cap (1 per 7 days) skips them.
      const capped = people.filter((_, i) => i % 10 === 3);
      const old = h.db.prepare(
        "INSERT INTO campaign_recipients (campaign_id, conversation_key, status, not_before, released_at, settled_at) VALUES ('old', ?, 'sent', 0, ?, ?)",
      );
      for (const p of capped) old.run(p.key, h.now - 2 * DAY, h.now - 2 * DAY);
      // Some stop the bot before the campaign starts…
      const stoppedBefore = people.filter((_, i) => i % 20 === 7);
      for (const p of stoppedBefore) await inject('/_sandbox/stop', { user_id: p.userId });
      await h.settle();

      const plan = await h.engine.campaigns.plan({ flow: 'offer' });
      expect(plan.count).toBe(N - stoppedBefore.length);
      const c = await h.engine.campaigns.start({
        name: 'spring',
        flow: 'offer',
        with: { code: 'S26' },
        rate: '25/s',
        quiet_hours: { from: '21:00', to: '09:00' },
        cap: { max: 1, per: '7d' },
      });
      expect(c.recipients).toBe(N - stoppedBefore.length);
      // …and some after it started, while they wait in line for their quiet hours to end (New York is at
      // 04:00 at the start: quiet).
      await h.advance(1000);
      const stoppedAfter = people.filter((p, i) => p.zone === 'America/New_York' && i % 20 === 1);
      for (const p of stoppedAfter) await inject('/_sandbox/stop', { user_id: p.userId });
      await h.settle();

      await runUntilDone(c.id);

      const sends = h.db
        .prepare(
          "SELECT conversation_key AS k, created_at AS at, status, priority FROM outbox WHERE args LIKE '%Spring offer S26%'",
        )
        .all() as { k: string; at: number; status: string; priority: string }[];
      const byKey = new Map(people.map((p) => [p.key, p]));
      const seen = new Set<string>();
      for (const s of sends) {
        expect(seen.has(s.k), `${s.k} messaged twice`).toBe(false);
        seen.add(s.k);
        expect(s.status).toBe('done');
        expect(s.priority).toBe('bulk');
        const { minute } = localTimeOfDay(s.at, byKey.get(s.k)!.zone);
        expect(
          minute >= 9 * 60 && minute < 21 * 60,
          `${s.k} messaged at minute ${minute} in ${byKey.get(s.k)!.zone}`,
        ).toBe(true);
      }
      const skipped = new Set([...capped, ...stoppedBefore, ...stoppedAfter].map((p) => p.key));
      for (const k of skipped) expect(seen.has(k), `${k} should not be messaged`).toBe(false);
      expect(seen.size).toBe(people.filter((p) => !skipped.has(p.key)).length);

      const status = await h.engine.campaigns.status(c.id);
      const cappedInLine = capped.filter((p) => !stoppedBefore.includes(p)).length;
      const stoppedInLine = stoppedAfter.filter((p) => !capped.includes(p)).length;
      expect(status.byStatus).toEqual({
        queued: 0,
        released: 0,
        sent: seen.size,
        failed: 0,
        skipped: cappedInLine + stoppedInLine,
      });
      expect(status.reasons).toEqual({ cap: cappedInLine, left: stoppedInLine });
      // The runner kept to the rate: never more than 25 releases in one virtual second.
      const perSecond = new Map<number, number>();
      for (const s of sends)
        perSecond.set(Math.floor(s.at / 1000), (perSecond.get(Math.floor(s.at / 1000)) ?? 0) + 1);
      expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(25);
      // New York's people waited for 09:00 in New York (14:00 UTC).
      const ny = sends.filter((s) => byKey.get(s.k)!.zone === 'America/New_York');
      expect(Math.min(...ny.map((s) => s.at))).toBeGreaterThanOrEqual(HARNESS_EPOCH + 5 * 3_600_000);
    }, 900_000);
  });
}
