/**
 * The handoff queue as planning sees it (docs/handoff.md): before a batch is planned the store counts the
 * requests nobody took yet in each operators' chat (store/handoff-queue.ts, read from the sessions); while
 * the batch is planned, a session that starts or stops waiting moves its chat's count. Each event gets
 * the counts in `meta.handoffWaiting`, and a `handoff` step entered by it tells the person their place.
 */
import type { HandoffStepRef } from '../../store/handoff-queue.ts';
import { andThen, type MaybePromise } from '../../store/ports/index.ts';
import type { EventMeta, FlowDefinition, FlowEvent } from '../step/contract.ts';
import type { CachedSession } from './session-cache.ts';

/** The `handoff` steps of `flows`, by the operators' chat they ask in. */
export function handoffSteps(flows: readonly FlowDefinition[]): Map<number, HandoffStepRef[]> {
  const byChat = new Map<number, HandoffStepRef[]>();
  for (const f of flows) {
    if (!f.handoff || f.handoff.steps.length === 0) continue;
    const list = byChat.get(f.handoff.operatorsChat) ?? [];
    list.push(...f.handoff.steps.map((step) => ({ flowId: f.id, step })));
    byChat.set(f.handoff.operatorsChat, list);
  }
  return byChat;
}

/** Reads each chat's count with `count` (one store query per operators' chat); undefined without any. */
export function readWaiting(
  steps: ReadonlyMap<number, readonly HandoffStepRef[]>,
  count: (steps: readonly HandoffStepRef[]) => MaybePromise<number>,
): MaybePromise<Record<string, number> | undefined> {
  if (steps.size === 0) return undefined;
  const waiting: Record<string, number> = {};
  const read = (chat: number, refs: readonly HandoffStepRef[]) =>
    andThen(count(refs), (n) => {
      waiting[String(chat)] = n;
    });
  const chain = [...steps].reduce<MaybePromise<void>>(
    (before, [chat, refs]) => andThen(before, () => read(chat, refs)),
    undefined as MaybePromise<void>,
  );
  return andThen(chain, () => waiting);
}

type Vars = { handoff?: { open?: boolean; operator?: unknown } };

/** The operators' chat `session` waits in with a request nobody took, if it does. */
export function waitingIn(
  session: CachedSession | undefined,
  flows: readonly FlowDefinition[],
): number | undefined {
  const row = session?.row;
  if (row?.status !== 'active') return undefined;
  const flow = flows.find((f) => f.id === row.flowId);
  if (!flow?.handoff?.steps.some((s) => JSON.stringify(s) === row.stateValue)) return undefined;
  const context = (session?.machine?.snapshot.context ??
    (JSON.parse(row.snapshot) as { context?: unknown }).context) as { vars?: Vars } | undefined;
  const handoff = context?.vars?.handoff;
  return handoff?.open === true && handoff.operator === undefined ? flow.handoff.operatorsChat : undefined;
}

/** `meta` (or an event's) with the counts, when there are any. */
export function withWaiting<T extends EventMeta | FlowEvent>(
  of: T,
  waiting: Record<string, number> | undefined,
): T {
  if (!waiting) return of;
  if ('meta' in of) return { ...of, meta: { ...of.meta, handoffWaiting: { ...waiting } } };
  return { ...of, handoffWaiting: { ...waiting } };
}
