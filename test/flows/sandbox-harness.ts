/** The real engine (SQLite in a temp dir) on the sandbox (real HTTP), sharing one virtual clock. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { BotApi } from '../../src/client/client.ts';
import { createEngine, type Engine } from '../../src/engine/engine.ts';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { FlowSet } from '../../src/engine/step/flow-set.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { openDatabase } from '../../src/store/database.ts';
import { InboxStore } from '../../src/store/inbox.ts';

export class BotOnSandbox {
  clock = Date.now();
  engine!: Engine;
  private marker: number | undefined;
  private inbox: InboxStore;
  private constructor(
    readonly sandbox: Sandbox,
    readonly api: BotApi,
    readonly db: Database.Database,
  ) {
    this.inbox = new InboxStore(db);
  }

  static async start(flows: FlowDefinition[]): Promise<BotOnSandbox> {
    const box: { clock: number } = { clock: Date.now() };
    const sandbox = await startSandbox({
      limits: false,
      now: () => box.clock,
      attachmentProcessingMs: { file: 0, image: 0 },
    });
    const api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
    const db = openDatabase({ path: join(mkdtempSync(join(tmpdir(), 'botflow-e2e-')), 'bot.db') });
    const bot = new BotOnSandbox(sandbox, api, db);
    Object.defineProperty(bot, 'clock', { get: () => box.clock, set: (v: number) => (box.clock = v) });
    await bot.useFlows(new FlowSet(flows));
    return bot;
  }

  /** Replaces the engine (as a restart with other flow versions would), keeping the database. */
  async useFlows(registry: FlowSet) {
    await this.engine?.stop({ waitMs: 2_000 });
    this.engine = createEngine({
      db: this.db,
      api: this.api,
      flows: registry,
      now: () => this.clock,
      secret: 'e2e-secret-0123456789',
    });
  }

  /** Moves every pending update from the sandbox into the inbox, then lets the engine finish its work. */
  async pump(rounds = 3) {
    for (let i = 0; i < rounds; i++) {
      const url = new URL(`${this.sandbox.baseUrl}/updates`);
      url.searchParams.set('timeout', '0');
      if (this.marker !== undefined) url.searchParams.set('marker', String(this.marker));
      const res = await fetch(url, { headers: { Authorization: this.sandbox.token } });
      const body = (await res.json()) as { updates: unknown[]; marker?: number };
      if (body.marker !== undefined) this.marker = body.marker;
      if (body.updates.length) this.inbox.append(body.updates.map((u) => updateEntry(JSON.stringify(u))));
      this.engine.start();
      this.engine.processPending();
      await this.engine.drain();
      this.engine.processPending();
      await this.engine.drain();
      if (!body.updates.length && i > 0) return;
    }
  }

  /** Advances the shared clock and fires the timers that came due. */
  async advance(ms: number) {
    this.clock += ms;
    this.engine.tick(this.clock);
    await this.pump();
  }

  async person(name: string, locale?: string): Promise<number> {
    const user = await this.sandbox.control.createUser({ first_name: name, ...(locale ? { locale } : {}) });
    return user.user_id;
  }

  async messages(userId: number) {
    return (await this.sandbox.control.view(userId)).messages;
  }

  async lastBot(userId: number) {
    const ms = (await this.messages(userId)).filter((m) => m.from === 'bot');
    return ms[ms.length - 1]!;
  }

  async close() {
    await this.engine.stop({ waitMs: 2_000 });
    await this.api.close();
    await this.sandbox.close();
    this.db.close();
  }
}
