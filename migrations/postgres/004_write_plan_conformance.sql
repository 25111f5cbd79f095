-- The write plan means the same on PostgreSQL as on SQLite (test/store/write-plan-conformance.test.ts applies
-- the same batches with both interpreters and compares what they leave). What differed, fixed here:
--
-- * `drop-calls` failed every time: in botflow_apply_ops the loop variable `op` clashed with the outbox's
--   `op` column ("column reference "op" is ambiguous"), so an event that drops a conversation's unsent calls
--   (the person left, a session stopped) failed on PostgreSQL. The variable is now `w`.
-- * A `session` write with `sameShape` (an advance: only the step moved) set every column; like
--   SessionStore.advance it now sets only the step's (state, snapshot, revision, step instance, time).
-- * A `task` row's `runAfter` was ignored (the first attempt could start at once); it is kept, as on SQLite.
-- * A cancelled task's error and its compensation's scope are the texts the SQLite side writes
--   (JSON.stringify): `{"code":"cancelled","message":…}` without json_build_object's spaces, and the scope
--   with `,"compensates":<id>` appended rather than re-serialised by jsonb (which reorders keys and adds
--   spaces). Compensations are inserted in the order of the tasks they compensate.

-- botflow:functions

