/** The support side of the SQLite store (ports/support.ts): today's stores, every answer at once. */
import type Database from 'better-sqlite3';
import { EngineInbox } from '../engine-inbox.ts';
import { FlowVersionStore } from '../flow-versions.ts';
import { OutboxStore } from '../outbox.ts';
import type { PlacedSession, SupportPort } from '../ports/support.ts';
import { SessionStore } from '../sessions.ts';
import { StepLogStore } from '../step-log.ts';
import { TaskStore } from '../tasks.ts';
import { TimerStore } from '../timers.ts';

/**
 * A conversation's session, armed timers, latest calls and tasks in one read transaction: a step committed
 * by the writer's connection lands in all of them or in none.
 */
function conversationReader(
  db: Database.Database,
  s: { sessions: SessionStore; timers: TimerStore; outbox: OutboxStore; tasks: TaskStore },
) {
  return db.transaction((key: string, recent: number) => {
    const session = s.sessions.get(key);
    if (!session) return undefined;
    return {
      session,
      timers: s.timers.forConversation(key).filter((t) => t.status === 'armed'),
      calls: s.outbox.forConversation(key, recent),
      tasks: s.tasks.forConversation(key, recent),
    };
  });
}

/** Support over `db` (migrations applied). */
export function sqliteSupport(db: Database.Database): SupportPort<true> {
  const sessions = new SessionStore(db);
  const outbox = new OutboxStore(db);
  const timers = new TimerStore(db);
  const inbox = new EngineInbox(db);
  const tasks = new TaskStore(db);
  const stepLog = new StepLogStore(db);

  const end = db.transaction((key: string, reason: string, now: number) => {
    const row = sessions.get(key);
    if (row?.status !== 'active') return false;
    sessions.end(key, 'stopped', row.revision, now);
    timers.settleAll(key, 'cancelled', reason, now);
    outbox.dropPending(key, reason, now);
    tasks.cancelAll(key, reason, now);
    return true;
  });

  const place = db.transaction(
    (p: PlacedSession, now: number, jump?: { kind: string; payload: string; reason: string }) => {
      const key = p.conversationKey;
      if (jump) {
        timers.settleAll(key, 'cancelled', jump.reason, now);
        outbox.dropPending(key, jump.reason, now);
        tasks.cancelAll(key, jump.reason, now);
      }
      const prior = sessions.get(key);
      const revision = (prior?.revision ?? 0) + 1;
      sessions.save(
        {
          conversationKey: key,
          flowId: p.flowId,
          flowVersion: p.flowVersion,
          status: 'active',
          stateValue: p.stateValue,
          snapshot: p.snapshot,
          revision,
          stepInstance: revision,
          startedRevision: revision,
          chatId: p.chatId,
          userId: p.userId,
          locale: p.locale,
          startedAt: now,
          updatedAt: now,
        },
        prior?.revision,
      );
      // The funnel sees a new session on the step (a jump is a session of its own).
      stepLog.append({
        conversationKey: key,
        stepInstance: revision,
        sessionRevision: revision,
        flowId: p.flowId,
        flowVersion: p.flowVersion,
        step: p.step,
        event: 'enter',
        n: 1,
        at: now,
      });
      if (jump)
        inbox.add({
          kind: jump.kind,
          dedupeKey: `jump:${key}:${revision}`,
          conversationKey: key,
          payload: jump.payload,
          receivedAt: now,
        });
      return revision;
    },
  );

  const readConversation = conversationReader(db, { sessions, timers, outbox, tasks });

  return {
    listSessions: (query) => sessions.list(query),
    conversation: (key, recent) => readConversation(key, recent),
    history: (key, limit, beforeId) => inbox.history(key, limit, beforeId),
    endSession: (key, reason, now) => end.immediate(key, reason, now),
    deadLetters: (limit) => outbox.failed(limit),
    retryDeadLetters: (ids) => outbox.retryFailed(ids),
    dropDeadLetters: (ids, now) => outbox.dropFailed(ids, now),
    bringTimersForward: (key, ms, now) => timers.bringForward(key, ms, now),
    fireTimerNow(key, timerId, now) {
      const timer = timers.get(timerId);
      if (timer?.conversationKey !== key || timer.status !== 'armed') return false;
      timers.postpone(timerId, now);
      return true;
    },
    placeSession: (p, now, jump) => place.immediate(p, now, jump),
    planSources: () => ({ sessions, versions: new FlowVersionStore(db) }),
    stepLog: (query) => stepLog.rows(query),
  };
}
