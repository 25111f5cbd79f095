-- Where conversations went, for the funnel (`botflow stats`, the playground's funnel page): an append-only
-- log written in the step transactions. `enter`: the session entered a step (so left the one before);
-- `finish`: it entered an end step and finished; `retry`: the step refused `n` answers; `stop`: the session
-- was stopped at the step. Appending to a table without a secondary index costs a step little; the funnel
-- reads the log in conversation order. Rows older than 90 days are pruned with the outbox.
CREATE TABLE step_log (
  id               INTEGER PRIMARY KEY,
  conversation_key TEXT    NOT NULL,
  step_instance    INTEGER NOT NULL,                  -- the revision at which the step was entered
  session_revision INTEGER NOT NULL,                  -- its session (sessions.started_revision)
  flow_id          TEXT    NOT NULL,
  flow_version     TEXT    NOT NULL,
  step             TEXT    NOT NULL,                  -- `ask_name`, or `pay>card` inside a called flow
  event            TEXT    NOT NULL CHECK (event IN ('enter', 'finish', 'retry', 'stop')),
  n                INTEGER NOT NULL DEFAULT 1,        -- answers refused, for `retry`
  at               INTEGER NOT NULL                   -- ms since the epoch
) STRICT;
