-- botflow on PostgreSQL: the tables of the SQLite migrations 001–005 (same names, same columns, times in ms
-- since the epoch), plus what several processes need: a partition on every row that belongs to a
-- conversation, leases (partition ownership, the dispatcher, the poller) and the members that hold them.
-- One step is still ONE transaction: botflow_apply_batch (functions/apply_batch.sql) writes a batch of planned steps (snapshot
-- compare-and-swap, outbox rows, timers, tasks, inbox status) in one round trip.

CREATE TABLE inbox (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  partition        integer NOT NULL,                   -- hash(conversation key) mod partitions
  kind             text    NOT NULL DEFAULT 'update',
  dedupe_key       text    NOT NULL UNIQUE,
  conversation_key text,
  update_type      text,
  payload          text    NOT NULL,
  received_at      bigint  NOT NULL,
  status           text    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed', 'ignored')),
  attempts         integer NOT NULL DEFAULT 0,
  error            text,
  processed_at     bigint
);
CREATE INDEX inbox_pending ON inbox (partition, id) WHERE status = 'pending';
CREATE INDEX inbox_received_at ON inbox (received_at);
CREATE INDEX inbox_by_conversation ON inbox (conversation_key, id);

CREATE TABLE kv (
  key        text   PRIMARY KEY,
  value      text   NOT NULL,
  updated_at bigint NOT NULL
);

CREATE TABLE sessions (
  conversation_key text    PRIMARY KEY,
  flow_id          text    NOT NULL,
  flow_version     text    NOT NULL,
  status           text    NOT NULL CHECK (status IN ('active', 'done', 'stopped')),
  state_value      text    NOT NULL,
  snapshot         text    NOT NULL,
  revision         bigint  NOT NULL,
  step_instance    bigint  NOT NULL,
  started_revision bigint  NOT NULL,
  chat_id          bigint,
  user_id          bigint,
  locale           text,
  started_at       bigint  NOT NULL,
  updated_at       bigint  NOT NULL
);
CREATE INDEX sessions_updated_at ON sessions (updated_at);
CREATE INDEX sessions_flow ON sessions (flow_id, flow_version) WHERE status = 'active';

CREATE TABLE outbox (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  partition        integer NOT NULL,
  conversation_key text    NOT NULL,
  revision         bigint  NOT NULL,
  seq              integer NOT NULL,
  order_key        text    NOT NULL,
  chat_id          bigint,
  kind             text    NOT NULL CHECK (kind IN ('api', 'upload_and_send')),
  op               text    NOT NULL,
  args             text    NOT NULL,
  ref              text,
  priority         text    NOT NULL,
  idempotency_key  text    NOT NULL,
  status           text    NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'sending', 'done', 'failed', 'dropped')),
  attempts         integer NOT NULL DEFAULT 0,
  claimed_by       text,                                 -- the member sending it (status 'sending')
  result           text,
  error            text,
  created_at       bigint  NOT NULL,
  sent_at          bigint,
  finished_at      bigint
);
CREATE INDEX outbox_open ON outbox (id) WHERE status IN ('pending', 'sending');
CREATE INDEX outbox_open_by_conversation ON outbox (conversation_key, id) WHERE status IN ('pending', 'sending');
-- A message resent after a crash reads back its chat; the messages sent there just before are found here.
CREATE INDEX outbox_sent_by_chat ON outbox (chat_id, finished_at) WHERE op = 'sendMessage';

CREATE TABLE timers (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  partition        integer NOT NULL,
  conversation_key text    NOT NULL,
  name             text    NOT NULL,
  due_at           bigint  NOT NULL,
  fire_at          bigint  NOT NULL,
  step_instance    bigint  NOT NULL,
  armed_revision   bigint  NOT NULL,
  status           text    NOT NULL DEFAULT 'armed'
                   CHECK (status IN ('armed', 'fired', 'cancelled', 'discarded', 'expired')),
  reason           text,
  armed_at         bigint  NOT NULL,
  settled_at       bigint
);
CREATE UNIQUE INDEX timers_armed_name ON timers (conversation_key, name) WHERE status = 'armed';
CREATE INDEX timers_due ON timers (fire_at) WHERE status = 'armed';

CREATE TABLE flow_versions (
  flow_id          text   NOT NULL,
  version          text   NOT NULL,
  first_loaded_at  bigint NOT NULL,
  last_loaded_at   bigint NOT NULL,
  source           text,
  PRIMARY KEY (flow_id, version)
);

-- Where conversations went, for the funnel: an append-only log of the step transactions (see the SQLite 006).
CREATE TABLE step_log (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  conversation_key text    NOT NULL,
  step_instance    bigint  NOT NULL,
  session_revision bigint  NOT NULL,
  flow_id          text    NOT NULL,
  flow_version     text    NOT NULL,
  step             text    NOT NULL,
  event            text    NOT NULL CHECK (event IN ('enter', 'finish', 'retry', 'stop')),
  n                integer NOT NULL DEFAULT 1,
  at               bigint  NOT NULL
);

CREATE TABLE tasks (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  partition        integer NOT NULL,
  conversation_key text    NOT NULL,
  revision         bigint  NOT NULL,
  step_instance    bigint  NOT NULL,
  name             text    NOT NULL,
  ref              text    NOT NULL,
  input            text    NOT NULL,
  scope            text    NOT NULL,
  policy           text    NOT NULL,
  chat_id          bigint,
  idempotency_key  text    NOT NULL,
  status           text    NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'running', 'done', 'failed', 'cancelled')),
  attempts         integer NOT NULL DEFAULT 0,
  claimed_by       text,                                 -- the member running it (status 'running')
  run_after        bigint  NOT NULL,
  result           text,
  error            text,
  created_at       bigint  NOT NULL,
  started_at       bigint,
  finished_at      bigint
);
CREATE INDEX tasks_open ON tasks (run_after) WHERE status IN ('pending', 'running');
CREATE INDEX tasks_by_conversation ON tasks (conversation_key, id);

-- The processes of one bot: each heartbeats its row; a row whose expires_at passed is a dead process.
CREATE TABLE members (
  id           text   PRIMARY KEY,                     -- host:pid:random, new at every start
  started_at   bigint NOT NULL,
  heartbeat_at bigint NOT NULL,
  expires_at   bigint NOT NULL,
  info         text   NOT NULL DEFAULT '{}'            -- JSON: host, pid, roles, for people
);

-- Leases: 'partition:N' (who handles the conversations of partition N), 'dispatcher' (who sends the outbox
-- and, in polling mode, polls). A lease is held while expires_at (database time) is ahead; `epoch` grows at
-- every change of owner (a fencing token for logs and tests).
CREATE TABLE leases (
  name       text   PRIMARY KEY,
  owner      text,
  expires_at bigint NOT NULL DEFAULT 0,
  epoch      bigint NOT NULL DEFAULT 0
);

-- The functions (botflow_now_ms, botflow_apply_ops, botflow_apply_batch…) as they are now: migrations/postgres/functions/.
-- botflow:functions
