/**
 * What the failover benchmark watches in the database while it runs (failover.bench.ts): every 50 ms, who
 * holds which leases (by process id) and how many calls wait in the outbox. From it: the takeovers after
 * each fault, and the send rate in the seconds a backlog existed under one dispatcher.
 */
import type pg from 'pg';
import type { LoggedRequest } from '../../src/sandbox/request-log.ts';

/** 64 partitions and the dispatcher. */
const ALL_LEASES = 65;
const EVERY_MS = 50;
/** A backlog: at least this many calls waiting (more than a second of sends). */
const BACKLOG = 40;

interface Sample {
  at: number;
  /** Leases held (not expired), and by which pids. */
  held: number;
  pids: Set<number>;
  dispatcherPid: number | undefined;
  backlog: number;
  /** Chats with a call waiting: each takes at most 2 sends a second (the platform's limit per dialog). */
  chats: number;
  /** Leases not held at this sample, with their last owner's pid (null: freed) and expiry (database ms). */
  missing: { name: string; pid: number | null; expiresAt: number }[];
}

export interface Monitor {
  samples: Sample[];
  dispatcherPid(): number | undefined;
  stop(): void;
  /**
   * Requests per second other than polls in the seconds a backlog existed under one dispatcher; `wide`:
   * the same over the seconds in which at least 14 chats had calls waiting, the only ones in which 28 sends
   * a second are allowed (2 per chat and second).
   */
  backlogRate(requests: readonly LoggedRequest[]): BacklogRate & { wide: BacklogRate };
}

interface BacklogRate {
  seconds: number;
  mean: number;
  p10: number;
  min: number;
  /** The median of the chats with calls waiting, over those seconds. */
  chats: number;
}

/** Enough chats waiting for the dispatcher's 28 sends a second (2 per chat and second). */
const WIDE = 14;

export function startMonitor(admin: pg.Client): Monitor {
  const samples: Sample[] = [];
  let on = true;
  void (async () => {
    while (on) {
      const started = Date.now();
      try {
        const { rows } = await admin.query<{
          name: string;
          pid: string | null;
          live: boolean;
          expires: string;
          backlog: string;
          chats: string;
        }>(
          "SELECT l.name, m.info::json->>'pid' AS pid, l.expires_at > botflow_now_ms() AS live, l.expires_at AS expires, " +
            "(SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending')) AS backlog, 0 AS chats " +
            'FROM leases l LEFT JOIN members m ON m.id = l.owner ' +
            "UNION ALL SELECT '', NULL, false, 0, count(*), count(DISTINCT chat_id) FROM outbox WHERE status IN ('pending', 'sending')",
        );
        const leases = rows.filter((r) => r.name !== '');
        const held = leases.filter((r) => r.live && r.pid !== null);
        const dispatcher = held.find((r) => r.name === 'dispatcher');
        samples.push({
          at: started,
          held: held.length,
          pids: new Set(held.map((r) => Number(r.pid))),
          dispatcherPid: dispatcher ? Number(dispatcher.pid) : undefined,
          backlog: Number(rows.at(-1)!.backlog),
          chats: Number(rows.at(-1)!.chats),
          missing: leases
            .filter((r) => !(r.live && r.pid !== null))
            .map((r) => ({
              name: r.name,
              pid: r.pid === null ? null : Number(r.pid),
              expiresAt: Number(r.expires),
            })),
        });
      } catch {
        // the database is busy: the next sample
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, EVERY_MS - (Date.now() - started))));
    }
  })();
  return {
    samples,
    dispatcherPid: () => samples.at(-1)?.dispatcherPid,
    stop() {
      on = false;
    },
    backlogRate(requests) {
      const all = backlogSeconds(samples).map(({ at, chats }) => ({
        rate: requests.filter(
          (r) => r.time >= at && r.time < at + 1000 && r.status !== 429 && r.op !== 'getUpdates',
        ).length,
        chats,
      }));
      return { ...summary(all), wide: summary(all.filter((x) => x.chats >= WIDE)) };
    },
  };
}

/** Takeovers: after a SIGKILL from the kill, after a SIGTERM from the leases being freed (ms, 50 ms samples). */
export function takeovers(
  monitor: Monitor,
  log: { kills: { at: number; pid: number }[]; terms: { at: number; pid: number }[] },
) {
  const { samples } = monitor;
  const after = (at: number, ok: (s: Sample) => boolean) => samples.find((s) => s.at >= at && ok(s));
  const kills = log.kills.map((k) => {
    const taken = after(k.at, (s) => s.held === ALL_LEASES && !s.pids.has(k.pid));
    return taken ? taken.at - k.at : null;
  });
  const graceful = log.terms.map((t) => {
    const freed = after(t.at, (s) => !s.pids.has(t.pid));
    const taken = freed && after(freed.at, (s) => s.held === ALL_LEASES);
    // A slow takeover: which leases were still not held half a second after the leases were freed, and whose.
    const late = freed && after(freed.at + 500, () => true);
    return {
      stopToFreedMs: freed ? freed.at - t.at : null,
      takeoverMs: taken && freed ? taken.at - freed.at : null,
      ...(late && late.held < ALL_LEASES && (!taken || taken.at > late.at)
        ? { notHeldAfter500ms: summarise(late.missing, t.pid) }
        : {}),
    };
  });
  const worst = (values: (number | null)[]) =>
    values.some((v) => v === null) ? null : Math.max(0, ...(values as number[]));
  return {
    sampleMs: EVERY_MS,
    killMs: kills,
    killMaxMs: worst(kills),
    graceful,
    gracefulMaxMs: worst(graceful.map((g) => g.takeoverMs)),
  };
}

/** Leases not held, in short: how many, which (first few), and whose they were (the stopping pid is "stopped"). */
function summarise(missing: Sample['missing'], stopped: number) {
  const owners: Record<string, number> = {};
  for (const m of missing) {
    const who = m.pid === null ? 'free' : m.pid === stopped ? 'stopped' : `pid ${m.pid}`;
    owners[who] = (owners[who] ?? 0) + 1;
  }
  return { n: missing.length, names: missing.slice(0, 4).map((m) => m.name), owners };
}

/**
 * The seconds (their starts) in which a backlog existed under one dispatcher: every 50 ms sample of the
 * second saw 40 calls or more waiting and the same dispatcher; with the fewest chats waiting in it.
 */
export function backlogSeconds(samples: readonly Sample[]): { at: number; chats: number }[] {
  const seconds: { at: number; chats: number }[] = [];
  const first = samples[0]?.at ?? 0;
  const last = samples.at(-1)?.at ?? 0;
  for (let s = first; s + 1000 <= last; s += 1000) {
    const inside = samples.filter((x) => x.at >= s && x.at <= s + 1000);
    const one = inside[0]?.dispatcherPid;
    if (inside.length < 5 || one === undefined) continue;
    if (!inside.every((x) => x.backlog >= BACKLOG && x.dispatcherPid === one)) continue;
    seconds.push({ at: s, chats: Math.min(...inside.map((x) => x.chats)) });
  }
  return seconds;
}

function summary(seconds: readonly { rate: number; chats: number }[]): BacklogRate {
  const rates = seconds.map((x) => x.rate).sort((a, b) => a - b);
  const chats = seconds.map((x) => x.chats).sort((a, b) => a - b);
  const mean = rates.length ? rates.reduce((a, b) => a + b, 0) / rates.length : 0;
  return {
    seconds: rates.length,
    mean: Number(mean.toFixed(1)),
    p10: rates[Math.floor(rates.length * 0.1)] ?? 0,
    min: rates[0] ?? 0,
    chats: chats[Math.floor(chats.length / 2)] ?? 0,
  };
}
