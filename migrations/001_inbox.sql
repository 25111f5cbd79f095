-- The inbox: every event botflow must handle (updates now; timers and effect results later), in arrival
-- order, de-duplicated by a key derived from the event. Intake writes rows; the engine consumes them.
CREATE TABLE inbox (
  id               INTEGER PRIMARY KEY,                -- arrival order
  kind             TEXT    NOT NULL DEFAULT 'update',  -- 'update' | 'timer' | 'effect_result' | …
  dedupe_key       TEXT    NOT NULL UNIQUE,            -- a second delivery of the same event is ignored
  conversation_key TEXT,                               -- NULL: the event belongs to no conversation
  update_type      TEXT,                               -- the update_type as received, for updates
  payload          TEXT    NOT NULL,                   -- the JSON text exactly as received
  received_at      INTEGER NOT NULL,                   -- ms since the epoch
  status           TEXT    NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'done', 'failed', 'ignored')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  error            TEXT,
  processed_at     INTEGER                             -- ms since the epoch, when status left 'pending'
) STRICT;

-- The engine's work queue: pending rows in order, globally and per conversation.
CREATE INDEX inbox_pending ON inbox (id) WHERE status = 'pending';
CREATE INDEX inbox_pending_by_conversation ON inbox (conversation_key, id) WHERE status = 'pending';
-- Retention pruning.
CREATE INDEX inbox_received_at ON inbox (received_at);

-- Small durable settings: the long-polling marker and the like.
CREATE TABLE kv (
  key        TEXT    PRIMARY KEY,
  value      TEXT    NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
