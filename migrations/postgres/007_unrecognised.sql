-- The step log also records `unrecognised`: nothing at `step` took a text the person typed; `sample` keeps
-- its first 200 characters, or null when the config's `funnel.samples` is false (the SQLite 009 does the
-- same). The two functions that write step-log lines
-- (botflow_apply_ops, botflow_apply_batch) write the `sample` column.
ALTER TABLE step_log ADD COLUMN sample text;
ALTER TABLE step_log DROP CONSTRAINT IF EXISTS step_log_event_check;
ALTER TABLE step_log ADD CONSTRAINT step_log_event_check
  CHECK (event IN ('enter', 'finish', 'retry', 'stop', 'fail', 'unrecognised'));

-- botflow:functions

