// A clean stop hands its partitions and the dispatcher role over at once (issue 36): the processes hear
// each other's lease news (LISTEN/NOTIFY on PostgreSQL) instead of noticing at their next tick. The lease
// tick here is 60 s, so a takeover that waited for a tick could not happen within the test: each change
// must come before the taker's next scheduled tick (an ordering, not a timed margin).
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Role } from '../../src/engine/lane/ownership.ts';
import { PARTITIONS } from '../../src/store/postgres/database.ts';
import { type ClusterProcess, useClusterHarness } from '../support/cluster-harness.ts';
import { eventually } from '../support/eventually.ts';
import { postgresAvailable } from '../support/postgres.ts';
import { signupFlow } from './fixtures.ts';

const up = await postgresAvailable();
const TICK_MS = 60_000;

/** A logger that keeps its lines. */
function keptLogger() {
  const lines: { msg: string; handedOver?: number }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).trim().split('\n')) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe.skipIf(!up)('a clean stop hands over without waiting for a tick', () => {
  const cluster = useClusterHarness();
  const roles = new Map<string, { role: Role; at: number }[]>();
  const logs = new Map<string, ReturnType<typeof keptLogger>>();
  const joinedAt = new Map<string, number>();

  async function start(name: string): Promise<ClusterProcess> {
    const kept = keptLogger();
    logs.set(name, kept);
    roles.set(name, []);
    joinedAt.set(name, Date.now());
    return cluster.start(name, {
      flows: [signupFlow],
      tickMs: TICK_MS,
      leaseMs: 3 * TICK_MS,
      logger: kept.logger,
      onRole: (role) => roles.get(name)!.push({ role, at: Date.now() }),
    });
  }
  /** When `name` first held `partitions` partitions (and the dispatcher role, if asked). */
  const heldAt = (name: string, partitions: number, dispatcher?: boolean) =>
    roles
      .get(name)!
      .find(
        (r) =>
          r.role.partitions.length === partitions &&
          (dispatcher === undefined || r.role.dispatcher === dispatcher),
      )?.at;

  it('a joining process gets its share, and a stopping one hands everything over, before the next tick', async () => {
    const a = await start('a');
    expect(a.engine.role()).toMatchObject({ dispatcher: true, partitions: expect.any(Array) });
    expect(a.engine.role().partitions).toHaveLength(PARTITIONS);

    // b joins: a hears it and gives b its share; b hears that and takes it, both long before a tick.
    const b = await start('b');
    const share = await eventually(
      'b holding its share (a released it on hearing b join)',
      () => {
        const held = b.engine.role().partitions.length;
        // onRole comes after the tick's timers work: wait for it too, it is read below.
        const told = roles.get('b')!.some((r) => r.role.partitions.length === held);
        return held > 0 && told && held + a.engine.role().partitions.length === PARTITIONS && held;
      },
      20_000,
    );
    const bJoined = joinedAt.get('b')!;
    // b's first tick (at its start) found nothing free: it took its share at a later one, the heard one.
    const gotShare = roles.get('b')!.find((r) => r.role.partitions.length > 0)!;
    expect(gotShare.role.partitions).toHaveLength(share);
    expect(gotShare.at).toBeLessThan(bJoined + TICK_MS);

    // a (the dispatcher) stops: b takes every partition and the dispatcher role on hearing it.
    const stopAt = Date.now();
    await cluster.stop(a);
    await eventually(
      'b holding every partition and the dispatcher role',
      () => heldAt('b', PARTITIONS, true) !== undefined,
      20_000,
    );
    // b's ticks: one at its start, the next one TICK_MS later; the takeover came between them, after a left.
    const takeover = heldAt('b', PARTITIONS, true)!;
    expect(takeover).toBeGreaterThanOrEqual(stopAt);
    expect(takeover).toBeLessThan(bJoined + TICK_MS);
    // The dispatcher role came with a's last second of calls: b counts them instead of pausing blindly.
    const led = logs
      .get('b')!
      .lines.find((l) => l.msg === 'this process is the dispatcher now: it sends the outbox');
    expect(led?.handedOver).toEqual(expect.any(Number));

    // And b, now alone, answers people at once (the dispatcher sends without waiting for a tick).
    const person = await cluster.sandbox.control.createUser({ first_name: 'Ann' });
    await cluster.sandbox.control.startBot(person.user_id);
    await eventually(
      'Ann to be greeted by b',
      async () => (await cluster.botTexts(person.user_id)).includes('What is your name?'),
      20_000,
    );
  }, 60_000);
});
