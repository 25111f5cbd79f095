/**
 * The playground's side panel, server side: a small read-only HTTP API over the running engine and flows,
 * mounted on the sandbox app beside the web chat page (see src/sandbox/web/).
 *
 *   GET /_inspector/state                        flows (graph + Mermaid text), check problems, readiness
 *   GET /_inspector/conversation?user_id=N       a person's dialog: session, step, context, timers, history
 *   GET /_inspector/conversation?key=K           any conversation by key
 *   GET /_inspector/events                       server-sent events: `flows` (reloaded), `step`, `error`
 *   GET /_inspector/storyboard[?flow=id]         every step as the person sees it (storyboard-routes.ts)
 *   GET /_inspector/funnel[?flow=id][&days=n]    how far conversations got (funnel-page.ts)
 *   GET /_inspector/plan                         running conversations by flow version (plan-page.ts)
 *   GET /_inspector/campaigns[?id=…]             campaigns, their recipients and funnel (campaigns-page.ts)
 *
 * The sandbox starts before the engine, so the routes are registered first and the engine is attached
 * later: `new Inspector()` → `startSandbox({ plugins: [webChatPlugin(), inspector.plugin] })` → … →
 * `inspector.attach({ engine, flows, problems })`; on every reload `inspector.setFlows(flows, problems)`.
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Engine } from '../engine/engine.ts';
import { operatorsChats } from '../engine/lane/operators.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { flowDiagram, flowToMermaid } from '../flows/mermaid.ts';
import { type StepLines, stepLines } from '../flows/step-lines.ts';
import { stepViews } from '../flows/step-views.ts';
import { wallNow } from '../store/ports/wall-time.ts';
import { type CampaignReader, campaignRoutes } from './campaigns-page.ts';
import { funnelRoutes } from './funnel-page.ts';
import { describeEvent } from './history-words.ts';
import { type PanelGraph, panelGraph } from './panel-graph.ts';
import { planRoutes } from './plan-page.ts';
import { storyboardRoutes } from './storyboard-routes.ts';

export { describeEvent } from './history-words.ts';

export { type PanelGraph, panelGraph } from './panel-graph.ts';

/**
 * What the inspector reads of the engine: its support API and its notifications, on either database
 * (answers at once on SQLite, promises on PostgreSQL: the routes await both); on PostgreSQL, its role.
 */
export type InspectedEngine = Pick<Engine<boolean>, 'sessions' | 'on'> & {
  campaigns?: CampaignReader;
  store?: { kind: 'sqlite' | 'postgres'; leases?: unknown };
  role?(): { member: string; partitions: readonly number[]; dispatcher: boolean; members: number };
};

/** The state value's path of step names: `'ask_name'` → `['ask_name']`, `{__call_help: 'explain'}` → both. */
export function statePath(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') {
    const [first] = Object.entries(value as Record<string, unknown>);
    if (first) return [first[0], ...statePath(first[1])];
  }
  return [];
}

const NO_ENGINE = { code: 'no.engine', message: 'No engine is attached to this sandbox: run botflow run' };

/** The conversation a request names: `key`, or `user_id` for a person's dialog with the bot. */
function conversationKeyOf(body: { user_id?: unknown; key?: unknown }): string | undefined {
  if (typeof body.key === 'string' && body.key !== '') return body.key;
  return Number.isSafeInteger(body.user_id) ? `u:${body.user_id}` : undefined;
}

/** The flows the engine serves now and the problems of the last load (as `file:line:col: message`). */
interface FlowsState {
  flows: {
    id: string;
    version: string;
    mermaid: string;
    graph: PanelGraph;
    /** Where each step is written (file, line, lines), for "click a step to see its source". */
    steps: Record<string, StepLines>;
  }[];
  problems: string[];
  loadedAt: number;
}

type Listener = (event: string, data: unknown) => void;

/** Read-only view of the engine and flows for the playground's side panel. */
export class Inspector {
  #engine: InspectedEngine | undefined;
  #flows: FlowsState = { flows: [], problems: [], loadedAt: 0 };
  /** The flows served now, for storyboards. */
  #definitions: readonly FlowDefinition[] = [];
  #listeners = new Set<Listener>();
  #detach: (() => void)[] = [];

  /** Connects the running engine and the flows loaded at start. */
  attach(options: {
    engine: InspectedEngine;
    flows: readonly FlowDefinition[];
    problems?: readonly unknown[];
  }): void {
    this.#engine = options.engine;
    for (const kind of ['step', 'effect', 'error'] as const) {
      this.#detach.push(options.engine.on(kind, (event) => this.#emit(kind, summarize(event))));
    }
    this.setFlows(options.flows, options.problems ?? []);
  }

  /**
   * After a (re)load: new flows and their check problems; open pages are told at once. With problems the
   * runtime keeps serving the previous flows, and so does the panel: only the problems change.
   */
  setFlows(flows: readonly FlowDefinition[], problems: readonly unknown[]): void {
    const keepPrevious = problems.length > 0 && this.#flows.flows.length > 0;
    if (!keepPrevious) this.#definitions = flows;
    this.#flows = {
      flows: keepPrevious
        ? this.#flows.flows
        : flows.map((def) => {
            const stepOrder = Object.keys((def.machine.root as { states: Record<string, unknown> }).states);
            const graph = panelGraph(flowDiagram(def), stepOrder, stepViews(def));
            const steps = stepLines(def.source);
            return { id: def.id, version: def.version, mermaid: flowToMermaid(def), graph, steps };
          }),
      problems: problems.map(String),
      loadedAt: wallNow(),
    };
    this.#emit('flows', { problems: this.#flows.problems, count: this.#flows.flows.length });
  }

  /** Tells open pages that a conversation changed (for engines without `on('step')`). */
  touched(conversationKey: string): void {
    this.#emit('step', { conversationKey });
  }

  /** Stops following the engine and ends open event streams. */
  close(): void {
    for (const off of this.#detach.splice(0)) off();
    this.#emit('close', {});
    this.#listeners.clear();
  }

  #emit(event: string, data: unknown): void {
    for (const listener of this.#listeners) listener(event, data);
  }

  /** The state the page starts from. */
  state() {
    // On PostgreSQL, the process's role among the instances (an extra line in the panel).
    const role = this.#engine?.store?.leases ? this.#engine.role?.() : undefined;
    return {
      ready: this.#engine !== undefined,
      ...(role
        ? {
            cluster: {
              member: role.member,
              partitions: role.partitions.length,
              dispatcher: role.dispatcher,
              members: role.members,
            },
          }
        : {}),
      ...this.#flows,
      // The operators' group chats the flows name (docs/handoff.md): the page plays the operator there.
      operatorsChats: [...operatorsChats(this.#definitions)],
    };
  }

  /** A conversation as the panel shows it, or `session: null` when it never had one. */
  async conversation(key: string) {
    const engine = this.#engine;
    if (!engine) return { key, ready: false, session: null, timers: [], tasks: [], history: [] };
    // The session first: an event's commit writes the session and marks the event done at once, so the
    // history read after it holds at least what made that session (never a step shown with its cause
    // still "pending"; on PostgreSQL a commit may land between the two reads).
    const row = await engine.sessions.get(key);
    const history = (await engine.sessions.history(key, { limit: 100 }))
      .map((e) => ({
        id: e.inboxId,
        kind: e.kind,
        summary: describeEvent(e),
        status: e.status,
        error: e.error,
        at: e.receivedAt,
      }))
      .sort((a, b) => a.id - b.id);
    if (!row) return { key, ready: true, session: null, timers: [], tasks: [], history };
    return {
      key,
      ready: true,
      session: {
        flowId: row.flowId,
        flowVersion: row.flowVersion,
        status: row.status,
        revision: row.revision,
        step: statePath(row.step),
        context: row.context ?? null,
        startedAt: row.startedAt,
        updatedAt: row.updatedAt,
      },
      timers: row.timers,
      tasks: row.tasks,
      history,
    };
  }

  /** The fastify plugin with the routes; register it on the sandbox app (before it listens). */
  readonly plugin: FastifyPluginAsync = async (app) => {
    app.get('/_inspector/state', async () => this.state());
    await app.register(storyboardRoutes(() => this.#definitions));
    await app.register(
      funnelRoutes(
        () => this.#definitions,
        (query) => this.#engine?.sessions.stepLog(query),
      ),
    );
    await app.register(planRoutes(() => this.#engine?.sessions.plan()));
    await app.register(campaignRoutes(() => this.#engine?.campaigns));
    app.get('/_inspector/conversation', async (req, reply) => {
      const q = req.query as { key?: string; user_id?: string };
      const key = q.key ?? (q.user_id && /^\d+$/.test(q.user_id) ? `u:${q.user_id}` : undefined);
      if (!key) {
        return reply.code(400).send({
          code: 'proto.payload',
          message: 'Give user_id (a person, for their dialog with the bot) or key (a conversation key)',
        });
      }
      return this.conversation(key);
    });
    this.#timerRoutes(app);
    this.#playgroundRoutes(app);
    this.#deadLetterRoutes(app);
    this.#eventStream(app);
    app.addHook('preClose', async () => this.close());
  };

  /** The playground's clock: a conversation's timers made due sooner, or one fired now. */
  #timerRoutes(app: FastifyInstance): void {
    app.post('/_inspector/timers/advance', async (req, reply) => {
      const body = (req.body ?? {}) as { user_id?: unknown; key?: unknown; ms?: unknown };
      const key = conversationKeyOf(body);
      if (!key || typeof body.ms !== 'number' || !Number.isFinite(body.ms) || body.ms <= 0)
        return reply.code(400).send({
          code: 'proto.payload',
          message: 'POST /_inspector/timers/advance takes { user_id (or key), ms: a positive duration }',
        });
      const sessions = this.#engine?.sessions;
      if (!sessions) return reply.code(409).send(NO_ENGINE);
      const moved = await sessions.advanceTimers(key, body.ms);
      this.#emit('step', { conversationKey: key });
      return { moved };
    });
    app.post('/_inspector/timers/fire', async (req, reply) => {
      const body = (req.body ?? {}) as { user_id?: unknown; key?: unknown; timer_id?: unknown };
      const key = conversationKeyOf(body);
      if (!key || !Number.isSafeInteger(body.timer_id))
        return reply.code(400).send({
          code: 'proto.payload',
          message: 'POST /_inspector/timers/fire takes { user_id (or key), timer_id }',
        });
      const sessions = this.#engine?.sessions;
      if (!sessions) return reply.code(409).send(NO_ENGINE);
      if (!(await sessions.fireTimerNow(key, body.timer_id as number)))
        return reply
          .code(404)
          .send({ code: 'not.found', message: 'no such armed timer: it fired or was cancelled' });
      this.#emit('step', { conversationKey: key });
      return { fired: true };
    });
  }

  /** The playground's reset of a person, and its "start here" (a jump to a step with chosen variables). */
  #playgroundRoutes(app: FastifyInstance): void {
    // The playground's reset of a person: their conversation ends; the next trigger starts afresh.
    app.post('/_inspector/reset', async (req, reply) => {
      const key = conversationKeyOf((req.body ?? {}) as { user_id?: unknown; key?: unknown });
      if (!key)
        return reply
          .code(400)
          .send({ code: 'proto.payload', message: 'POST /_inspector/reset takes { user_id } (or { key })' });
      const sessions = this.#engine?.sessions;
      if (!sessions) return reply.code(409).send(NO_ENGINE);
      const ended = await sessions.end(key, 'reset from the playground');
      this.#emit('step', { conversationKey: key });
      return { ended };
    });
    // The playground's "start here": a person's conversation jumps to a step with chosen variables.
    app.post('/_inspector/jump', async (req, reply) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const key = conversationKeyOf(body);
      const vars = body.vars ?? {};
      if (
        !key ||
        typeof body.flow !== 'string' ||
        typeof body.step !== 'string' ||
        !Number.isSafeInteger(body.chat_id) ||
        typeof vars !== 'object' ||
        Array.isArray(vars)
      )
        return reply.code(400).send({
          code: 'proto.payload',
          message: 'POST /_inspector/jump takes { user_id, chat_id, flow, step, vars: { name: value } }',
        });
      const sessions = this.#engine?.sessions;
      if (!sessions) return reply.code(409).send(NO_ENGINE);
      try {
        await sessions.jump({
          conversationKey: key,
          flowId: body.flow,
          step: body.step,
          vars: vars as Record<string, unknown>,
          chatId: body.chat_id as number,
          ...(Number.isSafeInteger(body.user_id) ? { userId: body.user_id as number } : {}),
          ...(typeof body.locale === 'string' ? { locale: body.locale } : {}),
        });
      } catch (error) {
        return reply.code(404).send({ code: 'not.found', message: (error as Error).message });
      }
      this.#emit('step', { conversationKey: key });
      return { jumped: true };
    });
  }

  /** Dead letters: listed, re-driven or given up. */
  #deadLetterRoutes(app: FastifyInstance): void {
    app.get('/_inspector/dead-letters', async () => ({
      deadLetters: (await this.#engine?.sessions.deadLetters()) ?? [],
    }));
    // Re-drive or give up dead letters, as `botflow outbox retry|drop` does: `{ ids: [..] }` or `{ all: true }`.
    for (const action of ['retry', 'drop'] as const) {
      app.post(`/_inspector/dead-letters/${action}`, async (req, reply) => {
        const body = (req.body ?? {}) as { ids?: unknown; all?: unknown };
        const ids = Array.isArray(body.ids) ? body.ids : undefined;
        if (
          (body.all !== true && !ids) ||
          (ids && (ids.length === 0 || !ids.every((id) => Number.isSafeInteger(id) && id > 0)))
        ) {
          return reply.code(400).send({
            code: 'proto.payload',
            message: `POST /_inspector/dead-letters/${action} takes { "ids": [outbox ids] } or { "all": true }`,
          });
        }
        const sessions = this.#engine?.sessions;
        if (!sessions) return reply.code(409).send(NO_ENGINE);
        const which = body.all === true ? undefined : (ids as number[]);
        const changed =
          action === 'retry' ? await sessions.retryDeadLetters(which) : await sessions.dropDeadLetters(which);
        this.#emit('dead-letters', { action, changed });
        return { changed };
      });
    }
  }

  /** The page's live feed: engine notifications as server-sent events. */
  #eventStream(app: FastifyInstance): void {
    app.get('/_inspector/events', (req, reply) => {
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      res.write(': inspector events\n\n');
      const listener: Listener = (event, data) => {
        if (event === 'close') return stop(true);
        res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      };
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
      this.#listeners.add(listener);
      const stop = (end = false) => {
        clearInterval(heartbeat);
        this.#listeners.delete(listener);
        if (end) res.end();
      };
      req.raw.once('close', () => stop());
    });
  }
}

/** Keeps only what the page needs of an engine notification (never payloads: they may hold personal data). */
function summarize(event: unknown): Record<string, unknown> {
  const e = (event ?? {}) as Record<string, unknown>;
  const key = e.conversationKey ?? e.conversation ?? e.key;
  return {
    ...(typeof key === 'string' ? { conversationKey: key } : {}),
    ...(typeof e.message === 'string' ? { message: e.message } : {}),
    // A call that failed for good: the page lists it (dead letters).
    ...(e.status === 'failed' ? { failed: true } : {}),
  };
}
