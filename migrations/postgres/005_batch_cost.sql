-- Committing a batch costs less server time (issue 27; docs/benchmarks.md has the figures). Measured on a
-- batch of 256 steps of the engine bench, botflow_apply_batch spent its time in one statement per write, and
-- most in a cancelling statement for tasks that did not exist:
--
-- * A step left cancels the tasks it started; the statement now runs only when the conversation has an
--   open task (an index probe first).
-- * When every event of the batch is applied at once (careful = false), writes of one kind go in one
--   statement for the whole batch where the order of the events cannot matter: outbox rows and step-log
--   lines (in the order of the events and of their writes: the same ids, in the same order, as one insert
--   per write) unless an event drops unsent calls; sessions when each conversation has one session write in
--   the batch (a failed compare-and-swap raises BF001 as before, and the caller applies the batch carefully);
--   timers when each conversation's timers are touched by one event, a discard before its arms, no cancel.
--   The careful path, one subtransaction per event, writes everything event by event as before.
-- * The answers are gathered in an array, not by appending to a jsonb value for every event.
-- * Pending events are read in id order: an index on id of the pending rows lets a process that owns many
--   partitions read its next batch without sorting every pending row of them.

CREATE INDEX inbox_pending_id ON inbox (id) WHERE status = 'pending';

-- `skip`: kinds of write the batch writes for all its events at once (see botflow_apply_batch).
DROP FUNCTION IF EXISTS botflow_apply_ops(jsonb, integer);
-- botflow:functions

