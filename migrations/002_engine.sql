-- The engine's tables: one session per conversation (its XState snapshot, pinned to a flow version),
-- the outbox of API calls that committed steps imply, durable timers, and the flow versions seen.
-- A step writes its session, outbox rows, timer rows and the inbox row's status in ONE transaction.

-- One row per conversation key: the current (or last) session. `revision` only ever grows, across
-- sessions too, so a step instance (the revision at which a step was entered) is never reused.
CREATE TABLE sessions (
  conversation_key TEXT    PRIMARY KEY,
  flow_id          TEXT    NOT NULL,
  flow_version     TEXT    NOT NULL,                  -- the version the snapshot runs on (pinned)
  status           TEXT    NOT NULL CHECK (status IN ('active', 'done', 'stopped')),
  state_value      TEXT    NOT NULL,                  -- JSON of the XState state value, for support
  snapshot         TEXT    NOT NULL,                  -- JSON of the persisted XState snapshot
  revision         INTEGER NOT NULL,                  -- compare-and-swap guard, +1 per committed step
  step_instance    INTEGER NOT NULL,                  -- revision at which the current step was entered
  started_revision INTEGER NOT NULL,                  -- revision at which this session started
  chat_id          INTEGER,                           -- where the conversation happens, when known
  user_id          INTEGER,
  locale           TEXT,
  started_at       INTEGER NOT NULL,                  -- ms since the epoch
  updated_at       INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_updated_at ON sessions (updated_at);
CREATE INDEX sessions_flow ON sessions (flow_id, flow_version) WHERE status = 'active';

-- API calls to make, in order per `order_key` (the target chat, or the callback being answered).
CREATE TABLE outbox (
  id               INTEGER PRIMARY KEY,               -- commit order
  conversation_key TEXT    NOT NULL,
  revision         INTEGER NOT NULL,                  -- the session revision whose step produced it
  seq              INTEGER NOT NULL,                  -- position among that step's effects
  order_key        TEXT    NOT NULL,                  -- calls with one order key are sent one at a time, in id order
  chat_id          INTEGER,                           -- the chat it counts against (rate limits)
  kind             TEXT    NOT NULL CHECK (kind IN ('api', 'upload_and_send')),
  op               TEXT    NOT NULL,                  -- operation name (`sendMessage`, …)
  args             TEXT    NOT NULL,                  -- JSON argument object
  ref              TEXT,                              -- the flow wants the result back under this ref
  priority         TEXT    NOT NULL,                  -- scheduler service class
  idempotency_key  TEXT    NOT NULL UNIQUE,           -- <conversation>:<revision>:<seq>
  status           TEXT    NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'sending', 'done', 'failed', 'dropped')),
  attempts         INTEGER NOT NULL DEFAULT 0,        -- times handed to the scheduler (2+: resent after a crash)
  result           TEXT,                              -- JSON answer, kept when the flow asked for it
  error            TEXT,                              -- why it failed or was dropped
  created_at       INTEGER NOT NULL,
  sent_at          INTEGER,
  finished_at      INTEGER
) STRICT;
CREATE INDEX outbox_open ON outbox (id) WHERE status IN ('pending', 'sending');
CREATE INDEX outbox_open_by_conversation ON outbox (conversation_key, id) WHERE status IN ('pending', 'sending');

-- Durable timers: absolute deadlines, armed by a step, fired as inbox events.
CREATE TABLE timers (
  id               INTEGER PRIMARY KEY,
  conversation_key TEXT    NOT NULL,
  name             TEXT    NOT NULL,
  due_at           INTEGER NOT NULL,                  -- the deadline the flow asked for
  fire_at          INTEGER NOT NULL,                  -- when it fires (later than due_at after downtime)
  step_instance    INTEGER NOT NULL,                  -- the step that armed it: left → discarded
  armed_revision   INTEGER NOT NULL,
  status           TEXT    NOT NULL DEFAULT 'armed'
                   CHECK (status IN ('armed', 'fired', 'cancelled', 'discarded', 'expired')),
  reason           TEXT,                              -- why it did not fire
  armed_at         INTEGER NOT NULL,
  settled_at       INTEGER
) STRICT;
CREATE UNIQUE INDEX timers_armed_name ON timers (conversation_key, name) WHERE status = 'armed';
CREATE INDEX timers_due ON timers (fire_at) WHERE status = 'armed';

-- Every flow version the engine has run, so a restart can tell which pinned versions must be loaded.
CREATE TABLE flow_versions (
  flow_id          TEXT    NOT NULL,
  version          TEXT    NOT NULL,
  first_loaded_at  INTEGER NOT NULL,
  last_loaded_at   INTEGER NOT NULL,
  PRIMARY KEY (flow_id, version)
) STRICT;

-- Support reads a conversation's event history from the inbox.
CREATE INDEX inbox_by_conversation ON inbox (conversation_key, id);
