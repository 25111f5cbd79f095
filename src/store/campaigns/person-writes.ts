/**
 * The person-level writes of a planned event on SQLite (botflow_apply_person on PostgreSQL): tags a flow
 * set or removed, a person who stopped the bot or removed the dialog, a released campaign recipient's
 * outcome. Applied inside the batch's transaction.
 */
import type Database from 'better-sqlite3';
import type { WriteOp } from '../ports/write-plan.ts';

type PersonOp = Extract<WriteOp, { kind: 'tags' | 'left' | 'recipient' }>;

/** Prepared statements for the person-level writes over one connection. */
export class PersonWrites {
  readonly #untag: Database.Statement;
  readonly #tag: Database.Statement;
  readonly #left: Database.Statement;
  readonly #recipient: Database.Statement;

  constructor(db: Database.Database) {
    this.#untag = db.prepare('DELETE FROM person_tags WHERE conversation_key = ? AND tag = ?');
    this.#tag = db.prepare(
      'INSERT INTO person_tags (conversation_key, tag, tagged_at) VALUES (?, ?, ?) ' +
        'ON CONFLICT (conversation_key, tag) DO NOTHING',
    );
    this.#left = db.prepare(
      'INSERT INTO people_left (conversation_key, reason, left_at) VALUES (?, ?, ?) ' +
        'ON CONFLICT (conversation_key) DO UPDATE SET reason = excluded.reason, left_at = excluded.left_at',
    );
    this.#recipient = db.prepare(
      'UPDATE campaign_recipients SET status = ?, reason = ?, settled_at = ? ' +
        "WHERE campaign_id = ? AND conversation_key = ? AND status = 'released'",
    );
  }

  /** Performs `op` (inside the caller's transaction). */
  apply(op: PersonOp): void {
    switch (op.kind) {
      case 'tags':
        for (const tag of op.remove) this.#untag.run(op.key, tag);
        for (const tag of op.add) this.#tag.run(op.key, tag, op.at);
        return;
      case 'left':
        this.#left.run(op.key, op.reason, op.at);
        return;
      case 'recipient':
        this.#recipient.run(op.status, op.reason, op.at, op.campaignId, op.key);
        return;
    }
  }
}
