-- The task outbox: the team's own async code a step started (`do: [{task: …}]`). A row is written in the
-- transaction of the step that starts it, like the step's outbox rows, and run at least once by the task
-- runner; its result comes back through the inbox as a `task_result` event.
CREATE TABLE tasks (
  id               INTEGER PRIMARY KEY,
  conversation_key TEXT    NOT NULL,
  revision         INTEGER NOT NULL,                  -- the session revision whose step started it
  step_instance    INTEGER NOT NULL,                  -- that step: once left, the result is recorded and ignored
  name             TEXT    NOT NULL,                  -- the registry's task name
  ref              TEXT    NOT NULL,                  -- what the flow hears the result under
  input            TEXT    NOT NULL,                  -- JSON
  scope            TEXT    NOT NULL,                  -- JSON {vars, locale}: the conversation when it started
  policy           TEXT    NOT NULL,                  -- JSON {timeoutMs, attempts, backoffMs, retryOn}
  chat_id          INTEGER,                           -- where "typing…" is shown while it runs
  idempotency_key  TEXT    NOT NULL,                  -- task:<conversation>:<revision>:<seq>, the same for every attempt
  status           TEXT    NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'running', 'done', 'failed', 'cancelled')),
  attempts         INTEGER NOT NULL DEFAULT 0,        -- attempts started (a crash mid-run counts one)
  run_after        INTEGER NOT NULL,                  -- the next attempt starts no earlier (retry backoff)
  result           TEXT,                              -- JSON result of a done task
  error            TEXT,                              -- JSON {code, message} of the last failure
  created_at       INTEGER NOT NULL,
  started_at       INTEGER,
  finished_at      INTEGER
) STRICT;
CREATE INDEX tasks_open ON tasks (run_after) WHERE status IN ('pending', 'running');
CREATE INDEX tasks_by_conversation ON tasks (conversation_key, id);
