-- botflow on PostgreSQL: the tables of the SQLite migrations 001–005 (same names, same columns, times in ms
-- since the epoch), plus what several processes need: a partition on every row that belongs to a
-- conversation, leases (partition ownership, the dispatcher, the poller) and the members that hold them.
-- One step is still ONE transaction: botflow_apply_batch below writes a batch of planned steps (snapshot
-- compare-and-swap, outbox rows, timers, tasks, inbox status) in one round trip.

-- Time as every process agrees on it: the database's clock, in ms since the epoch.
CREATE FUNCTION botflow_now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS
$$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;

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

-- One planned event's writes (src/engine/commit/commit.ts WriteOp[], as JSON), in order. Raises BF001 when
-- a session moved on (compare-and-swap). Returns how many unsent calls it dropped.
CREATE FUNCTION botflow_apply_ops(ops jsonb, part integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  op jsonb;
  r jsonb;
  n integer;
  dropped integer := 0;
BEGIN
  FOR op IN SELECT value FROM jsonb_array_elements(ops) LOOP
    CASE op->>'kind'
    WHEN 'session' THEN
      r := op->'row';
      IF op->'expected' IS NULL OR jsonb_typeof(op->'expected') = 'null' THEN
        INSERT INTO sessions (conversation_key, flow_id, flow_version, status, state_value, snapshot, revision,
          step_instance, started_revision, chat_id, user_id, locale, started_at, updated_at)
        VALUES (r->>'conversationKey', r->>'flowId', r->>'flowVersion', r->>'status', r->>'stateValue',
          r->>'snapshot', (r->>'revision')::bigint, (r->>'stepInstance')::bigint, (r->>'startedRevision')::bigint,
          (r->>'chatId')::bigint, (r->>'userId')::bigint, r->>'locale', (r->>'startedAt')::bigint,
          (r->>'updatedAt')::bigint)
        ON CONFLICT (conversation_key) DO NOTHING;
      ELSE
        UPDATE sessions SET flow_id = r->>'flowId', flow_version = r->>'flowVersion', status = r->>'status',
          state_value = r->>'stateValue', snapshot = r->>'snapshot', revision = (r->>'revision')::bigint,
          step_instance = (r->>'stepInstance')::bigint, started_revision = (r->>'startedRevision')::bigint,
          chat_id = (r->>'chatId')::bigint, user_id = (r->>'userId')::bigint, locale = r->>'locale',
          started_at = (r->>'startedAt')::bigint, updated_at = (r->>'updatedAt')::bigint
        WHERE conversation_key = r->>'conversationKey' AND revision = (op->>'expected')::bigint;
      END IF;
      GET DIAGNOSTICS n = ROW_COUNT;
      IF n <> 1 THEN
        RAISE EXCEPTION 'session % is no longer at revision %: another writer committed a step first',
          r->>'conversationKey', coalesce(op->>'expected', '0') USING ERRCODE = 'BF001';
      END IF;
    WHEN 'call' THEN
      r := op->'row';
      INSERT INTO outbox (partition, conversation_key, revision, seq, order_key, chat_id, kind, op, args, ref,
        priority, idempotency_key, created_at)
      VALUES (part, r->>'conversationKey', (r->>'revision')::bigint, (r->>'seq')::integer, r->>'orderKey',
        (r->>'chatId')::bigint, r->>'kind', r->>'op', r->>'args', r->>'ref', r->>'priority',
        coalesce(r->>'idempotencyKey', (r->>'conversationKey') || ':' || (r->>'revision') || ':' || (r->>'seq')),
        (r->>'createdAt')::bigint);
    WHEN 'arm' THEN
      r := op->'timer';
      INSERT INTO timers (partition, conversation_key, name, due_at, fire_at, step_instance, armed_revision, armed_at)
      VALUES (part, r->>'conversationKey', r->>'name', (r->>'dueAt')::bigint, (r->>'dueAt')::bigint,
        (r->>'stepInstance')::bigint, (r->>'revision')::bigint, (r->>'now')::bigint)
      ON CONFLICT (conversation_key, name) WHERE status = 'armed' DO UPDATE SET due_at = excluded.due_at,
        fire_at = excluded.fire_at, step_instance = excluded.step_instance,
        armed_revision = excluded.armed_revision, armed_at = excluded.armed_at;
    WHEN 'cancel' THEN
      UPDATE timers SET status = 'cancelled', reason = op->>'reason', settled_at = (op->>'now')::bigint
      WHERE conversation_key = op->>'key' AND name = op->>'name' AND status = 'armed';
    WHEN 'discard' THEN
      UPDATE timers SET status = 'discarded', reason = op->>'reason', settled_at = (op->>'now')::bigint
      WHERE conversation_key = op->>'key' AND status = 'armed' AND step_instance <> (op->>'stepInstance')::bigint;
    WHEN 'settle-timers' THEN
      UPDATE timers SET status = op->>'status', reason = op->>'reason', settled_at = (op->>'now')::bigint
      WHERE conversation_key = op->>'key' AND status = 'armed';
    WHEN 'drop-calls' THEN
      UPDATE outbox SET status = 'dropped', error = op->>'reason', finished_at = (op->>'now')::bigint
      WHERE conversation_key = op->>'key' AND status = 'pending';
      GET DIAGNOSTICS n = ROW_COUNT;
      dropped := dropped + n;
    WHEN 'settle' THEN
      UPDATE inbox SET status = op->>'status', error = op->>'reason', processed_at = (op->>'now')::bigint,
        conversation_key = coalesce(conversation_key, op->>'key'), attempts = attempts + 1
      WHERE id = (op->>'id')::bigint AND status = 'pending';
    WHEN 'step-log' THEN
      r := op->'row';
      INSERT INTO step_log (conversation_key, step_instance, session_revision, flow_id, flow_version, step, event, n, at)
      VALUES (r->>'conversationKey', (r->>'stepInstance')::bigint, (r->>'sessionRevision')::bigint, r->>'flowId',
        r->>'flowVersion', r->>'step', r->>'event', (r->>'n')::integer, (r->>'at')::bigint);
    WHEN 'task' THEN
      r := op->'row';
      INSERT INTO tasks (partition, conversation_key, revision, step_instance, name, ref, input, scope, policy,
        chat_id, idempotency_key, run_after, created_at)
      VALUES (part, r->>'conversationKey', (r->>'revision')::bigint, (r->>'stepInstance')::bigint, r->>'name',
        r->>'ref', r->>'input', r->>'scope', r->>'policy', (r->>'chatId')::bigint, r->>'idempotencyKey',
        (r->>'createdAt')::bigint, (r->>'createdAt')::bigint);
    WHEN 'cancel-task' THEN
      UPDATE tasks SET status = 'cancelled', error = json_build_object('code', 'cancelled', 'message', op->>'reason')::text,
        finished_at = (op->>'now')::bigint
      WHERE conversation_key = op->>'key' AND ref = op->>'ref' AND status IN ('pending', 'running');
    WHEN 'cancel-tasks' THEN
      UPDATE tasks SET status = 'cancelled', error = json_build_object('code', 'cancelled', 'message', op->>'reason')::text,
        finished_at = (op->>'now')::bigint
      WHERE conversation_key = op->>'key' AND status IN ('pending', 'running');
    ELSE
      RAISE EXCEPTION 'unknown write %', op->>'kind';
    END CASE;
  END LOOP;
  RETURN dropped;
END $$;

-- A planned batch (src/engine/commit/apply.ts PlannedWrites[] with each event's partition) in the caller's
-- transaction. `owner`: the partitions' leases must be held by it (else BF002: nothing is written).
-- careful = false: every event or none (an error rolls the batch back and the caller tries carefully).
-- careful = true: one subtransaction per event; a revision conflict holds the event (and the later events of
-- its conversation), another error fails it with the reason. Errors of the environment are raised.
CREATE FUNCTION botflow_apply_batch(owner text, partitions integer[], batch jsonb, careful boolean, now_ms bigint)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  ev jsonb;
  results jsonb := '[]'::jsonb;
  held text[] := '{}';
  done_ids bigint[] := '{}';
  key text;
  dropped integer;
  held_count integer;
BEGIN
  IF owner IS NOT NULL THEN
    SELECT count(*) INTO held_count FROM (
      SELECT 1 FROM leases l
      WHERE l.name = ANY (SELECT 'partition:' || p FROM unnest(partitions) p)
        AND l.owner = botflow_apply_batch.owner AND l.expires_at > botflow_now_ms()
      FOR SHARE) x;
    IF held_count <> cardinality(partitions) THEN
      RAISE EXCEPTION 'this process no longer owns every partition of the batch' USING ERRCODE = 'BF002';
    END IF;
  END IF;
  FOR ev IN SELECT value FROM jsonb_array_elements(batch) LOOP
    key := ev->>'conversationKey';
    IF NOT careful THEN
      dropped := botflow_apply_ops(ev->'ops', (ev->>'partition')::integer);
      results := results || jsonb_build_object('status', 'applied', 'dropped', dropped);
      done_ids := done_ids || (ev->>'inboxId')::bigint;
    ELSIF key IS NOT NULL AND key = ANY (held) THEN
      results := results || jsonb_build_object('status', 'held');
    ELSE
      BEGIN
        dropped := botflow_apply_ops(ev->'ops', (ev->>'partition')::integer);
        IF (ev->>'done')::boolean THEN done_ids := done_ids || (ev->>'inboxId')::bigint; END IF;
        results := results || jsonb_build_object('status', 'applied', 'dropped', dropped);
      EXCEPTION WHEN OTHERS THEN
        IF SQLSTATE <> 'BF001' AND left(SQLSTATE, 2) IN ('08', '40', '53', '55', '57', '58', 'BF') THEN RAISE; END IF;
        IF key IS NOT NULL THEN held := held || key; END IF;
        IF SQLSTATE = 'BF001' THEN
          results := results || jsonb_build_object('status', 'held');
        ELSE
          UPDATE inbox SET status = 'failed', error = SQLERRM, processed_at = now_ms,
            conversation_key = coalesce(conversation_key, key), attempts = attempts + 1
          WHERE id = (ev->>'inboxId')::bigint AND status = 'pending';
          results := results || jsonb_build_object('status', 'failed', 'reason', SQLERRM);
        END IF;
      END;
    END IF;
  END LOOP;
  UPDATE inbox SET status = 'done', processed_at = now_ms, attempts = attempts + 1
  WHERE id = ANY (done_ids) AND status = 'pending';
  RETURN results;
END $$;
