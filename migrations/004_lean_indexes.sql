-- Fewer indexes on the hot path: every update is appended and settled, and most steps insert an outbox
-- row, so each index here costs a page write per event (a random one, for keys spread over conversations).
--
-- `inbox_pending_by_conversation` duplicated `inbox_by_conversation` (002) for the pending rows; reads of a
-- conversation's pending rows use the full index.
DROP INDEX inbox_pending_by_conversation;

-- `outbox.idempotency_key` loses its UNIQUE index: a step's rows are written once, in the transaction that
-- moves its session to a new revision (compare-and-swap), so a second insert of one key cannot happen; the
-- key stays on every row. SQLite cannot drop an inline constraint, so the table is rebuilt.
CREATE TABLE outbox_new (
  id               INTEGER PRIMARY KEY,
  conversation_key TEXT    NOT NULL,
  revision         INTEGER NOT NULL,
  seq              INTEGER NOT NULL,
  order_key        TEXT    NOT NULL,
  chat_id          INTEGER,
  kind             TEXT    NOT NULL CHECK (kind IN ('api', 'upload_and_send')),
  op               TEXT    NOT NULL,
  args             TEXT    NOT NULL,
  ref              TEXT,
  priority         TEXT    NOT NULL,
  idempotency_key  TEXT    NOT NULL,                  -- <conversation>:<revision>:<seq>, or answer:<callback>
  status           TEXT    NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'sending', 'done', 'failed', 'dropped')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  result           TEXT,
  error            TEXT,
  created_at       INTEGER NOT NULL,
  sent_at          INTEGER,
  finished_at      INTEGER
) STRICT;
INSERT INTO outbox_new SELECT id, conversation_key, revision, seq, order_key, chat_id, kind, op, args, ref, priority,
  idempotency_key, status, attempts, result, error, created_at, sent_at, finished_at FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_new RENAME TO outbox;
CREATE INDEX outbox_open ON outbox (id) WHERE status IN ('pending', 'sending');
CREATE INDEX outbox_open_by_conversation ON outbox (conversation_key, id) WHERE status IN ('pending', 'sending');
