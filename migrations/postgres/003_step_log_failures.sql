-- The step log also records `fail`: the flow failed at run time at `step` and recovered (its on_error
-- route or the built-in apology); the funnel counts them per step.
ALTER TABLE step_log DROP CONSTRAINT IF EXISTS step_log_event_check;
ALTER TABLE step_log ADD CONSTRAINT step_log_event_check CHECK (event IN ('enter', 'finish', 'retry', 'stop', 'fail'));
