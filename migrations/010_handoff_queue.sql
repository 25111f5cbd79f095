-- The handoff queue (docs/handoff.md, store/handoff-queue.ts): the requests nobody took are counted before
-- each batch of a bot whose flows hand off. Only sessions waiting for an operator are in this index: a
-- waiting session's snapshot holds `"handoff":{"open":true}` (taken, it holds the operator too; closed,
-- `false`), so the index costs nothing to the other sessions' writes and the count reads just the queue.
CREATE INDEX sessions_handoff_waiting ON sessions (flow_id, state_value)
  WHERE status = 'active' AND snapshot LIKE '%"handoff":{"open":true}%';
