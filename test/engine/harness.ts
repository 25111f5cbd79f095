// The engine on disk, without HTTP (end to end over HTTP is src/testing/harness.ts's Harness): a real
// SQLite file in a temp dir, intake's own inbox writer, a virtual clock, and an engine that can be
// "restarted" (database closed and reopened, engine rebuilt) at any point.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { Job } from '../../src/client/scheduler/types.ts';
import type { CallGateway } from '../../src/dispatch/dispatcher.ts';
import { createEngine, type Engine, type EngineOptions } from '../../src/engine/engine.ts';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { openDatabase } from '../../src/store/database.ts';
import { InboxStore } from '../../src/store/inbox.ts';
import type { OutboxRow } from '../../src/store/outbox.ts';

export const SECRET = 'test-secret-for-button-signing';

export class EngineOnDisk {
  readonly dir = mkdtempSync(join(tmpdir(), 'botflow-engine-'));
  readonly path = join(this.dir, 'bot.db');
  time = Date.UTC(2026, 0, 5, 9, 0, 0);
  db!: Database.Database;
  engine!: Engine;
  #inbox!: InboxStore;

  constructor(
    readonly flows: () => FlowDefinition[],
    readonly extra: Partial<EngineOptions> = {},
  ) {
    this.open();
  }

  open(extra: Partial<EngineOptions> = {}): Engine {
    this.db = openDatabase({ path: this.path, synchronous: 'NORMAL' });
    this.#inbox = new InboxStore(this.db);
    this.engine = createEngine({
      db: this.db,
      flows: this.flows(),
      secret: SECRET,
      now: () => this.time,
      ...this.extra,
      ...extra,
    });
    return this.engine;
  }

  /** Simulates a crash or a restart: the connection goes away, a new engine starts on the same file. */
  async reopen(extra: Partial<EngineOptions> = {}): Promise<Engine> {
    await this.engine.stop({ waitMs: 0 });
    this.db.close();
    return this.open(extra);
  }

  /** Delivers updates the way intake stores them (its entry builder and inbox store). */
  deliver(...updates: object[]): void {
    this.#inbox.append(updates.map((u) => ({ ...updateEntry(JSON.stringify(u)), receivedAt: this.time })));
  }

  advance(ms: number): void {
    this.time += ms;
  }

  outbox(conversationKey?: string): (Omit<OutboxRow, 'args'> & { args: Record<string, unknown> })[] {
    const rows = this.db
      .prepare(
        'SELECT id, conversation_key AS conversationKey, op, args, status, error, attempts, order_key AS orderKey, ' +
          'ref FROM outbox ' +
          (conversationKey ? 'WHERE conversation_key = ? ' : '') +
          'ORDER BY id',
      )
      .all(...(conversationKey ? [conversationKey] : [])) as OutboxRow[];
    return rows.map((r) => ({ ...r, args: JSON.parse(r.args) as Record<string, unknown> }));
  }

  /** Texts the bot would send to one conversation, in order. */
  texts(conversationKey: string): string[] {
    return this.outbox(conversationKey)
      .filter((r) => r.op === 'sendMessage' || r.op === 'editMessage')
      .map((r) => String(r.args.text));
  }

  /** Payloads of the callback buttons in the last keyboard sent to a conversation. */
  lastKeyboard(conversationKey: string): Record<string, string> {
    const rows = this.outbox(conversationKey).filter((r) => Array.isArray(r.args.attachments));
    const last = rows.at(-1);
    const out: Record<string, string> = {};
    for (const a of (last?.args.attachments ?? []) as {
      type: string;
      payload: { buttons: { text: string; payload: string }[][] };
    }[]) {
      if (a.type !== 'inline_keyboard') continue;
      for (const b of a.payload.buttons.flat()) out[b.text] = b.payload;
    }
    return out;
  }

  inboxRows(): {
    id: number;
    kind: string;
    status: string;
    error: string | null;
    conversationKey: string | null;
  }[] {
    return this.db
      .prepare('SELECT id, kind, status, error, conversation_key AS conversationKey FROM inbox ORDER BY id')
      .all() as never;
  }

  async close(): Promise<void> {
    await this.engine.stop({ waitMs: 0 });
    if (this.db.open) this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A gateway standing in for the network: records every call, answers like the platform, can hold calls. */
export class RecordingGateway implements CallGateway {
  readonly calls: { op: string; args: Record<string, unknown> }[] = [];
  hold = false;
  readonly held: (() => void)[] = [];
  #messages = 0;

  async submit(job: Job): Promise<unknown> {
    const args = job.args as Record<string, unknown>;
    this.calls.push({ op: job.op, args });
    if (this.hold) await new Promise<void>((resolve) => this.held.push(resolve));
    if (job.op === 'sendMessage') {
      const mid = `mid.${(++this.#messages).toString(16).padStart(32, '0')}`;
      return {
        message: {
          recipient: { chat_id: args.chat_id },
          timestamp: 0,
          body: { mid, text: args.text },
        },
      };
    }
    return { success: true };
  }
}
