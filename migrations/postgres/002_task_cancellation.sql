-- Leaving a step cancels the tasks it started, and a task cancelled after an attempt began starts its
-- compensating task (`on_cancel`, named in its policy): see src/store/tasks.ts (the SQLite side) for the rules.
-- Compensations (ref ending ':on_cancel') belong to no step and are never cancelled.
-- botflow_cancel_tasks (functions/cancel_tasks.sql), called by botflow_apply_ops.
-- botflow:functions

