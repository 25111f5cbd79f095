-- The step log also records `fail`: the flow failed at run time at `step` (an expression over an unset
-- variable, a guard that threw) and recovered through its on_error route or the built-in apology; the
-- funnel counts them per step. SQLite cannot change a CHECK constraint in place: the table is rebuilt.
CREATE TABLE step_log_new (
  id               INTEGER PRIMARY KEY,
  conversation_key TEXT    NOT NULL,
  step_instance    INTEGER NOT NULL,
  session_revision INTEGER NOT NULL,
  flow_id          TEXT    NOT NULL,
  flow_version     TEXT    NOT NULL,
  step             TEXT    NOT NULL,
  event            TEXT    NOT NULL CHECK (event IN ('enter', 'finish', 'retry', 'stop', 'fail')),
  n                INTEGER NOT NULL DEFAULT 1,
  at               INTEGER NOT NULL
) STRICT;
INSERT INTO step_log_new SELECT id, conversation_key, step_instance, session_revision, flow_id, flow_version, step, event, n, at FROM step_log;
DROP TABLE step_log;
ALTER TABLE step_log_new RENAME TO step_log;
