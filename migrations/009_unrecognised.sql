-- The step log also records `unrecognised`: nothing at `step` took a text the person typed (no button or
-- option matched, no intent was sure); `sample` keeps its first 200 characters, or null when the config's
-- `funnel.samples` is false (only counted). SQLite cannot change a CHECK constraint in place: the table is
-- rebuilt, as in 007.
CREATE TABLE step_log_new (
  id               INTEGER PRIMARY KEY,
  conversation_key TEXT    NOT NULL,
  step_instance    INTEGER NOT NULL,
  session_revision INTEGER NOT NULL,
  flow_id          TEXT    NOT NULL,
  flow_version     TEXT    NOT NULL,
  step             TEXT    NOT NULL,
  event            TEXT    NOT NULL CHECK (event IN ('enter', 'finish', 'retry', 'stop', 'fail', 'unrecognised')),
  n                INTEGER NOT NULL DEFAULT 1,
  at               INTEGER NOT NULL,
  sample           TEXT
) STRICT;
INSERT INTO step_log_new (id, conversation_key, step_instance, session_revision, flow_id, flow_version, step, event, n, at)
  SELECT id, conversation_key, step_instance, session_revision, flow_id, flow_version, step, event, n, at FROM step_log;
DROP TABLE step_log;
ALTER TABLE step_log_new RENAME TO step_log;
