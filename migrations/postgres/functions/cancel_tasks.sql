-- Leaving a step cancels the tasks it started, and a task cancelled after an attempt began starts its
-- compensating task (`on_cancel`, named in its policy): see src/store/tasks.ts (the SQLite side) for the rules.
-- Compensations (ref ending ':on_cancel') belong to no step and are never cancelled.
CREATE OR REPLACE FUNCTION botflow_cancel_tasks(key text, only_ref text, reason text, now_ms bigint, part integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  WITH open AS (
    SELECT id, status AS was FROM tasks
    WHERE conversation_key = key AND status IN ('pending', 'running') AND ref NOT LIKE '%:on_cancel'
      AND (only_ref IS NULL OR ref = only_ref)
    FOR UPDATE
  ), cancelled AS (
    UPDATE tasks t SET status = 'cancelled', finished_at = now_ms,
      error = '{"code":"cancelled","message":' || to_json(reason)::text || '}'
    FROM open WHERE t.id = open.id
    RETURNING t.*, open.was
  ), compensations AS (
    INSERT INTO tasks (partition, conversation_key, revision, step_instance, name, ref, input, scope, policy,
      chat_id, idempotency_key, run_after, created_at)
    SELECT part, c.conversation_key, c.revision, c.step_instance, c.policy::jsonb->'onCancel'->>'task',
      c.ref || ':on_cancel', c.input,
      CASE
        WHEN jsonb_typeof(c.scope::jsonb) <> 'object' OR c.scope::jsonb ? 'compensates'
          THEN (c.scope::jsonb || jsonb_build_object('compensates', c.id))::text
        WHEN c.scope::jsonb = '{}'::jsonb THEN '{"compensates":' || c.id || '}'
        ELSE left(rtrim(c.scope), -1) || ',"compensates":' || c.id || '}'
      END,
      '{}', c.chat_id, c.idempotency_key,
      CASE WHEN c.was = 'running'
        THEN coalesce(c.started_at, now_ms) + coalesce((c.policy::jsonb->>'timeoutMs')::bigint, 30000)
        ELSE now_ms END,
      now_ms
    FROM cancelled c
    WHERE c.attempts > 0 AND jsonb_typeof(c.policy::jsonb->'onCancel'->'task') = 'string'
    ORDER BY c.id
  )
  SELECT count(*) INTO n FROM cancelled;
  RETURN n;
END $$;
