// Durable timers on a virtual clock over a real SQLite file: firing without user input, across restarts,
// discarded with the step that armed them, and the grace rule after downtime.
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { botStarted, signupFlow, textMessage } from './fixtures.ts';
import { EngineOnDisk } from './harness.ts';

const HOUR = 3_600_000;
let h: EngineOnDisk;
afterEach(async () => {
  await h?.close();
});

describe('durable timers', () => {
  it('fires a timer after a restart, and not one whose step was left', async () => {
    h = new EngineOnDisk(() => [signupFlow]);
    h.deliver(botStarted(1, h.time), botStarted(2, h.time));
    h.engine.processPending();
    h.advance(10 * 60_000);
    h.deliver(textMessage(2, h.time, 'Bea')); // person 2 leaves ask_name: its reminder is stale now
    h.engine.processPending();

    await h.reopen();
    h.advance(HOUR - 10 * 60_000 - 1);
    expect(h.engine.tick()).toEqual([]); // one millisecond early: nothing
    h.advance(1);
    const outcomes = h.engine.tick();
    expect(outcomes.map((o) => [o.kind, o.conversationKey, o.status])).toEqual([['timer', 'u:1', 'done']]);
    expect(h.texts('u:1')).toEqual(['What is your name?', 'Still there? (reminder 1)']);
    expect(h.texts('u:2')).toEqual(['What is your name?', 'Hello Bea! Pick a plan:']);
    expect(h.engine.sessions.get('u:1')!.context).toMatchObject({ reminders: 1 });
  });

  it('ignores a timer that fired just before its step was left', () => {
    h = new EngineOnDisk(() => [signupFlow]);
    h.deliver(botStarted(1, h.time));
    h.engine.processPending();
    h.advance(HOUR);
    h.deliver(textMessage(1, h.time, 'Ann')); // arrives before the timer fires, handled after
    const outcomes = h.engine.tick();
    expect(outcomes.map((o) => [o.kind, o.status, o.reason])).toEqual([
      ['update', 'done', undefined],
      ['timer', 'ignored', 'the step that armed the timer was left'],
    ]);
    expect(h.texts('u:1')).toEqual(['What is your name?', 'Hello Ann! Pick a plan:']);
  });

  it('spreads out timers that came due while the engine was down, and expires very old ones', async () => {
    h = new EngineOnDisk(() => [signupFlow], {
      timerGrace: { toleranceMs: 60_000, maxLateMs: 6 * HOUR, perSecond: 5 },
    });
    const early = Array.from({ length: 10 }, (_, i) => i + 1);
    for (const id of early) h.deliver(botStarted(id, h.time));
    h.engine.processPending();
    h.advance(4 * HOUR);
    const late = Array.from({ length: 20 }, (_, i) => i + 100);
    for (const id of late) h.deliver(botStarted(id, h.time));
    h.engine.processPending();

    // Down for the night: the first ten reminders are now 9 h late, the other twenty 5 h late.
    await h.reopen();
    h.advance(6 * HOUR);
    const first = h.engine.tick();
    expect(first.map((o) => o.kind)).toEqual(['timer']); // one fires now, the rest are spread out
    const expired = h.db.prepare("SELECT count(*) AS n FROM timers WHERE status = 'expired'").get() as {
      n: number;
    };
    expect(expired.n).toBe(10);
    h.advance(1000);
    expect(h.engine.tick().filter((o) => o.kind === 'timer')).toHaveLength(5);
    h.advance(3000);
    expect(h.engine.tick().filter((o) => o.kind === 'timer')).toHaveLength(14);
    for (const id of early) expect(h.texts(`u:${id}`)).toEqual(['What is your name?']);
    for (const id of late) expect(h.texts(`u:${id}`).at(-1)).toBe('Still there? (reminder 1)');
  });

  it('fires timers on its own once started, without anyone writing', async () => {
    h = new EngineOnDisk(() => [signupFlow], { now: undefined });
    h.deliver(botStarted(1, Date.now()));
    h.engine.processPending();
    // Re-arm the reminder a few milliseconds ahead on the real clock.
    h.db
      .prepare("UPDATE timers SET fire_at = ?, due_at = ? WHERE status = 'armed'")
      .run(Date.now() + 50, Date.now() + 50);
    h.engine.start();
    await eventually('the reminder', () => h.texts('u:1').length === 2, 20_000);
    expect(h.texts('u:1').at(-1)).toBe('Still there? (reminder 1)');
  });
});
