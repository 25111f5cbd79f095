/**
 * The harness transcripts run in: the sandbox in-process (real HTTP on 127.0.0.1, no rate limits),
 * a temporary SQLite database, and the real engine, all on one virtual clock. People act through the
 * sandbox's control API; every update the sandbox produces goes straight into the inbox (no polling,
 * so nothing races), and after each action the engine runs until it is quiet. What the bot did in a
 * turn is read from the outbox in commit order, each call with the flow step that produced it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { BotApi } from '../client/client.ts';
import type { TaskDefinition } from '../dispatch/tasks/task.ts';
import { createEngine, type Engine } from '../engine/engine.ts';
import { operatorsChats } from '../engine/lane/operators.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { FlowSet } from '../engine/step/flow-set.ts';
import { BotflowError } from '../errors/index.ts';
import { stepKeyOf } from '../flows/compile.ts';
import { updateEntry } from '../inbox/update-entry.ts';
import type { Recorder } from '../runtime/recorder.ts';
import { type Sandbox, type SandboxUpdate, startSandbox } from '../sandbox/index.ts';
import { openOperatorsChats } from '../sandbox/operators-chat.ts';
import { openDatabase } from '../store/database.ts';
import { EngineInbox } from '../store/engine-inbox.ts';
import { HistoryStore } from '../store/history.ts';
import { InboxStore } from '../store/inbox.ts';
import { TaskStore } from '../store/tasks.ts';
import { TimerStore } from '../store/timers.ts';
import { CoverageRecorder } from './coverage-recorder.ts';
import { virtualClock, withTasks } from './harness-parts.ts';
import { placeAtStep } from './start-at.ts';
import type { PersonAction, StartAt } from './transcript.ts';

/** The virtual time a harness starts at: 2026-01-05 09:00 UTC, a Monday morning. */
export const HARNESS_EPOCH = Date.UTC(2026, 0, 5, 9, 0, 0);

/** One API call the bot made, as the outbox committed it. */
export interface BotCall {
  op: string;
  /** `upload_and_send` for a file upload followed by its message. */
  kind: string;
  args: Record<string, unknown>;
  status: string;
  error?: string;
  /** `flow › step` of the step that produced it. */
  step?: string;
  conversationKey: string;
}

/** What happened in one turn. */
export interface TurnOutcome {
  calls: BotCall[];
  /** `flow › step` after each event of the turn, in order. */
  steps: string[];
  /** Events the engine could not handle (they fail the turn). */
  errors: string[];
}

/** A problem with the dialog itself (a button that is not there, a person without a chat). */
export class HarnessError extends BotflowError {
  override name = 'HarnessError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_TRANSCRIPT', message, options);
  }
}

export interface HarnessOptions {
  /** The flows to run. */
  flows: FlowDefinition[] | FlowSet;
  /** Virtual time at the start (default HARNESS_EPOCH). */
  startTime?: number;
  /** Shared coverage recorder (for `botflow test --coverage`). */
  coverage?: CoverageRecorder;
  /** Records the session as `botflow run --record` would (updates and API results), on the virtual clock. */
  recorder?: (now: () => number) => Recorder;
  /** The tasks flows may start (transcripts: their stubs). Retries run on the virtual clock. */
  tasks?: Readonly<Record<string, TaskDefinition>>;
}

/** A person in the harness. */
export interface HarnessPerson {
  userId: number;
  name: string;
}

/** An engine on the sandbox, driven turn by turn. */
export class Harness {
  #time: number;
  #lastOutboxId = 0;
  #lastTaskId = 0;
  #tasks: Readonly<Record<string, TaskDefinition>> = {};
  #steps: string[] = [];
  #errors: string[] = [];
  #stepOfRevision = new Map<string, string>();
  #holdUpdates = false;
  /** A `start_at` step inside a called flow: placed, not entered (its message was never sent). */
  #placedOnly: string | undefined;
  #held: SandboxUpdate[] = [];
  #recorder: Recorder | undefined;
  readonly #inbox: EngineInbox;
  readonly #timers: TimerStore;
  readonly #taskRows: TaskStore;
  readonly #history: HistoryStore;
  readonly coverage: CoverageRecorder;
  engine!: Engine;

  private constructor(
    readonly sandbox: Sandbox,
    readonly api: BotApi,
    readonly db: Database.Database,
    private readonly dir: string,
    startTime: number,
    coverage: CoverageRecorder,
  ) {
    this.#time = startTime;
    this.coverage = coverage;
    this.#inbox = new EngineInbox(db);
    this.#timers = new TimerStore(db);
    this.#taskRows = new TaskStore(db);
    this.#history = new HistoryStore(db);
  }

  /** Starts the sandbox, the database and the engine. Close it with `close()`. */
  static async start(options: HarnessOptions): Promise<Harness> {
    const box = { time: options.startTime ?? HARNESS_EPOCH };
    const sandbox = await startSandbox({
      limits: false,
      now: () => box.time,
      attachmentProcessingMs: { file: 0, image: 0, video: 0, audio: 0 },
    });
    const api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
    const dir = mkdtempSync(join(tmpdir(), 'botflow-transcript-'));
    const db = openDatabase({ path: join(dir, 'bot.db') });
    const h = new Harness(sandbox, api, db, dir, box.time, options.coverage ?? new CoverageRecorder());
    const recorder = options.recorder?.(() => h.#time);
    h.#recorder = recorder;
    Object.defineProperty(box, 'time', { get: () => h.#time });
    h.#tasks = options.tasks ?? {};
    h.#startEngine(options.flows);
    await openOperatorsChats(sandbox.control, operatorsChats(h.engine.flows.current()));
    const inbox = new InboxStore(db);
    sandbox.onUpdate((update) => {
      if (h.#holdUpdates) h.#held.push(update);
      else {
        recorder?.update(update);
        inbox.append([{ ...updateEntry(JSON.stringify(update)), receivedAt: h.#time }]);
      }
    });
    return h;
  }

  /** Builds and starts the engine on this harness's database, clock and client, with `flows`. */
  #startEngine(given: FlowSet | FlowDefinition[]): void {
    const defs = given instanceof FlowSet ? given.all() : given;
    const flows = new FlowSet(defs.map((f) => this.coverage.instrument(f)));
    const recorder = this.#recorder;
    this.engine = createEngine({
      db: this.db,
      api: recorder ? recorder.wrapApi(this.api) : this.api,
      flows,
      clock: virtualClock(() => this.#time),
      secret: 'botflow-transcripts-0123456789',
      tasks: this.#tasks,
      botUsername: this.sandbox.bot.username,
    });
    this.engine.on('step', (o) => this.#onStep(o.conversationKey, o.session));
    if (recorder) this.engine.on('task', (o) => recorder.task(o));
    if (recorder) this.engine.on('accepted', (row) => recorder.event(row));
    // A task the transcript did not stub fails the turn with the hint, whatever path the flow takes then.
    this.engine.on('task', (o) => {
      if (o.status === 'failed' && o.error?.code === 'no_stub') this.#errors.push(o.error.message);
    });
    this.engine.on('error', (o) =>
      this.#errors.push(`${o.kind} event failed: ${o.reason ?? 'unknown error'}`),
    );
    this.engine.start();
  }

  /**
   * Restarts the bot with other flows, keeping its database, as a deploy does: running conversations stay
   * on the version they started with unless a `migrate:` block of the new version moves them.
   */
  async restart(flows: FlowSet | FlowDefinition[]): Promise<void> {
    await this.settle();
    await this.engine.stop({ waitMs: 2_000 });
    this.#startEngine(flows);
  }

  /** The temporary database file (deleted by `close()`). */
  get databasePath(): string {
    return join(this.dir, 'bot.db');
  }

  /** Virtual time now (ms since the epoch). */
  get now(): number {
    return this.#time;
  }

  #onStep(key: string | null, session?: { flowId: string; revision: number; stateValue: string }) {
    this.coverage.flush();
    if (!session || !key) return;
    const step = stepKeyOf(JSON.parse(session.stateValue));
    const label = `${session.flowId} › ${step}`;
    this.#stepOfRevision.set(`${key}#${session.revision}`, label);
    this.#steps.push(label);
  }

  /** Creates a person (not yet talking to the bot). */
  async person(name: string, locale?: string): Promise<HarnessPerson> {
    const user = await this.sandbox.control.createUser({ first_name: name, ...(locale ? { locale } : {}) });
    return { userId: user.user_id, name };
  }

  /** Opens the person's dialog unheard by the engine (for transcripts not starting with `start`); returns the held `bot_started`. */
  async openDialog(person: HarnessPerson): Promise<unknown> {
    this.#holdUpdates = true;
    try {
      await this.sandbox.control.startBot(person.userId, {});
    } finally {
      this.#holdUpdates = false;
    }
    return this.#held.splice(0)[0];
  }

  /**
   * Puts `person` into `step` of `flowId` with `context`, as if the dialog had got there (see start-at.ts):
   * a top-level step is entered, so the person sees its message and buttons. Returns what the entry did
   * (before the first turn: not part of its expectations); an entry that fails throws.
   */
  async startAt(person: HarnessPerson, flowId: string, at: StartAt): Promise<TurnOutcome> {
    const started = await this.openDialog(person);
    const flow = this.engine.flows.latest(flowId);
    if (!flow) throw new HarnessError(`start_at: no flow "${flowId}" is loaded`);
    this.#steps = [];
    this.#errors = [];
    const placed = placeAtStep(this.engine.store.support, flow, started, at, this.#time);
    this.coverage.visit(placed.conversationKey, flowId, placed.step);
    this.#placedOnly = placed.entered ? undefined : at.step;
    if (placed.entered) await this.settle();
    const entry = this.#collect();
    if (entry.errors.length)
      throw new HarnessError(`start_at: entering ${flowId} › ${at.step} failed: ${entry.errors.join('; ')}`);
    return entry;
  }

  /** Performs what a person does, runs the engine until quiet, and returns what the bot did. */
  async act(person: HarnessPerson, action: PersonAction): Promise<TurnOutcome> {
    this.#steps = [];
    this.#errors = [];
    const c = this.sandbox.control;
    const u = person.userId;
    switch (action.kind) {
      case 'start':
        await c.startBot(u, action.payload === undefined ? {} : { payload: action.payload });
        break;
      case 'say':
        await c.sendText(u, 'dialog', action.text);
        break;
      case 'press':
        await this.#press(person, action.button, action.on);
        break;
      case 'contact':
        await c.sendContact(u, 'dialog', {
          ...(action.name ? { name: action.name } : {}),
          ...(action.phone ? { phone: action.phone } : {}),
        });
        break;
      case 'location':
        await c.sendLocation(u, 'dialog', { latitude: action.latitude, longitude: action.longitude });
        break;
      case 'file':
        await c.sendAttachment(
          u,
          'dialog',
          {
            type: action.type,
            filename: action.name,
            text: `contents of ${action.name}`,
          },
          action.text,
        );
        break;
      case 'stop':
        await c.stopBot(u);
        break;
      case 'event': // as `bot.events.send` sends it: checked against the flows' schemas, then stored
        await this.engine.events.send({ ...action.event, to: { userId: u } });
        break;
      case 'wait':
        await this.advance(action.ms);
        return this.#collect();
    }
    await this.settle();
    return this.#collect();
  }

  async #press(person: HarnessPerson, label: string, on: 'latest' | 'previous' | 'first') {
    const view = await this.sandbox.control.view(person.userId);
    const withButton = view.messages.filter(
      (m) =>
        m.from === 'bot' && (m.keyboard ?? []).flat().some((b) => (b as { text?: string }).text === label),
    );
    const index = on === 'first' ? 0 : withButton.length - (on === 'previous' ? 2 : 1);
    const message = withButton[index];
    if (!message) {
      const labels = view.messages
        .filter((m) => m.from === 'bot' && m.keyboard)
        .flatMap((m) => (m.keyboard ?? []).flat().map((b) => `"${(b as { text?: string }).text}"`));
      const found = withButton.length ? ` (only ${withButton.length} bot message(s) have it)` : '';
      const placed = this.#placedOnly
        ? `\n    start_at: ${this.#placedOnly} is inside a called flow: it is placed, not entered, so its message and buttons were never sent; start at the step that calls it and press what leads there`
        : '';
      throw new HarnessError(
        `press "${label}" (${on}): no such button in the chat${found}; buttons the person sees: ${[...new Set(labels)].join(', ') || 'none'}${placed}`,
      );
    }
    await this.sandbox.control.pressButton(person.userId, message.message_id, { text: label });
  }

  /**
   * Runs the engine until the inbox is empty and no call or task is in flight. A task waiting to be tried
   * again is run at its time: the virtual clock moves on to it, as the person would wait.
   */
  async settle(): Promise<void> {
    for (let i = 0; i < 50; i++) {
      await this.engine.drain();
      if (this.#pendingInbox() > 0) continue;
      const retry = this.#taskRows.nextRunAfter();
      if (retry === undefined) return;
      this.#time = Math.max(this.#time, retry);
      this.engine.tick(this.#time);
    }
    throw new HarnessError(
      'the engine did not settle after 50 rounds: do two flows keep answering each other?',
    );
  }

  /** Moves virtual time forward by `ms`, firing every timer on its due time, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.#time + ms;
    for (;;) {
      const next = this.#timers.nextFireAt();
      if (next === undefined || next > target) break;
      this.#time = Math.max(this.#time, next);
      this.engine.tick(this.#time);
      await this.settle();
    }
    this.#time = target;
    this.engine.tick(this.#time);
    await this.settle();
  }

  #pendingInbox(): number {
    return this.#inbox.pendingCount();
  }

  #collect(): TurnOutcome {
    const rows = this.#history.outboxAfter(this.#lastOutboxId);
    if (rows.length) this.#lastOutboxId = rows[rows.length - 1]!.id;
    const tasks = this.#taskRows.after(this.#lastTaskId);
    if (tasks.length) this.#lastTaskId = tasks[tasks.length - 1]!.id;
    const merged = withTasks(rows, tasks);
    const calls = merged.map((r): BotCall => {
      const step = this.#stepOfRevision.get(`${r.conversationKey}#${r.revision}`);
      return {
        op: r.op,
        kind: r.kind,
        args: JSON.parse(r.args) as Record<string, unknown>,
        status: r.status,
        ...(r.error ? { error: r.error } : {}),
        ...(step ? { step } : {}),
        conversationKey: r.conversationKey,
      };
    });
    return { calls, steps: this.#steps, errors: this.#errors };
  }

  /** Stops everything and deletes the temporary database. */
  async close(): Promise<void> {
    await this.engine.stop({ waitMs: 2_000 });
    await this.#recorder?.close();
    await this.api.close();
    await this.sandbox.close();
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
