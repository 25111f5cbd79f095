-- Leaving a step cancels the tasks it started, and a task cancelled after an attempt began starts its
-- compensating task (`on_cancel`, named in its policy): see src/store/tasks.ts (the SQLite side) for the rules.
-- Compensations (ref ending ':on_cancel') belong to no step and are never cancelled.
CREATE FUNCTION botflow_cancel_tasks(key text, only_ref text, reason text, now_ms bigint, part integer)
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
      error = json_build_object('code', 'cancelled', 'message', reason)::text
    FROM open WHERE t.id = open.id
    RETURNING t.*, open.was
  ), compensations AS (
    INSERT INTO tasks (partition, conversation_key, revision, step_instance, name, ref, input, scope, policy,
      chat_id, idempotency_key, run_after, created_at)
    SELECT part, c.conversation_key, c.revision, c.step_instance, c.policy::jsonb->'onCancel'->>'task',
      c.ref || ':on_cancel', c.input, (c.scope::jsonb || jsonb_build_object('compensates', c.id))::text, '{}',
      c.chat_id, c.idempotency_key,
      CASE WHEN c.was = 'running'
        THEN coalesce(c.started_at, now_ms) + coalesce((c.policy::jsonb->>'timeoutMs')::bigint, 30000)
        ELSE now_ms END,
      now_ms
    FROM cancelled c
    WHERE c.attempts > 0 AND jsonb_typeof(c.policy::jsonb->'onCancel'->'task') = 'string'
  )
  SELECT count(*) INTO n FROM cancelled;
  RETURN n;
END $$;

CREATE OR REPLACE FUNCTION botflow_apply_ops(ops jsonb, part integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  op jsonb;
  r jsonb;
  n integer;
  dropped integer := 0;
BEGIN
  FOR op IN SELECT value FROM jsonb_array_elements(ops) LOOP
    CASE op->>'kind'
    WHEN 'session' THEN
      r := op->'row';
      IF op->'expected' IS NULL OR jsonb_typeof(op->'expected') = 'null' THEN
        INSERT INTO sessions (conversation_key, flow_id, flow_version, status, state_value, snapshot, revision,
          step_instance, started_revision, chat_id, user_id, locale, started_at, updated_at)
        VALUES (r->>'conversationKey', r->>'flowId', r->>'flowVersion', r->>'status', r->>'stateValue',
          r->>'snapshot', (r->>'revision')::bigint, (r->>'stepInstance')::bigint, (r->>'startedRevision')::bigint,
          (r->>'chatId')::bigint, (r->>'userId')::bigint, r->>'locale', (r->>'startedAt')::bigint,
          (r->>'updatedAt')::bigint)
        ON CONFLICT (conversation_key) DO NOTHING;
      ELSE
        UPDATE sessions SET flow_id = r->>'flowId', flow_version = r->>'flowVersion', status = r->>'status',
          state_value = r->>'stateValue', snapshot = r->>'snapshot', revision = (r->>'revision')::bigint,
          step_instance = (r->>'stepInstance')::bigint, started_revision = (r->>'startedRevision')::bigint,
          chat_id = (r->>'chatId')::bigint, user_id = (r->>'userId')::bigint, locale = r->>'locale',
          started_at = (r->>'startedAt')::bigint, updated_at = (r->>'updatedAt')::bigint
        WHERE conversation_key = r->>'conversationKey' AND revision = (op->>'expected')::bigint;
      END IF;
      GET DIAGNOSTICS n = ROW_COUNT;
      IF n <> 1 THEN
        RAISE EXCEPTION 'session % is no longer at revision %: another writer committed a step first',
          r->>'conversationKey', coalesce(op->>'expected', '0') USING ERRCODE = 'BF001';
      END IF;
    WHEN 'call' THEN
      r := op->'row';
      INSERT INTO outbox (partition, conversation_key, revision, seq, order_key, chat_id, kind, op, args, ref,
        priority, idempotency_key, created_at)
      VALUES (part, r->>'conversationKey', (r->>'revision')::bigint, (r->>'seq')::integer, r->>'orderKey',
        (r->>'chatId')::bigint, r->>'kind', r->>'op', r->>'args', r->>'ref', r->>'priority',
        coalesce(r->>'idempotencyKey', (r->>'conversationKey') || ':' || (r->>'revision') || ':' || (r->>'seq')),
        (r->>'createdAt')::bigint);
    WHEN 'arm' THEN
      r := op->'timer';
      INSERT INTO timers (partition, conversation_key, name, due_at, fire_at, step_instance, armed_revision, armed_at)
      VALUES (part, r->>'conversationKey', r->>'name', (r->>'dueAt')::bigint, (r->>'dueAt')::bigint,
        (r->>'stepInstance')::bigint, (r->>'revision')::bigint, (r->>'now')::bigint)
      ON CONFLICT (conversation_key, name) WHERE status = 'armed' DO UPDATE SET due_at = excluded.due_at,
        fire_at = excluded.fire_at, step_instance = excluded.step_instance,
        armed_revision = excluded.armed_revision, armed_at = excluded.armed_at;
    WHEN 'cancel' THEN
      UPDATE timers SET status = 'cancelled', reason = op->>'reason', settled_at = (op->>'now')::bigint
      WHERE conversation_key = op->>'key' AND name = op->>'name' AND status = 'armed';
    WHEN 'discard' THEN
      UPDATE timers SET status = 'discarded', reason = op->>'reason', settled_at = (op->>'now')::bigint
      WHERE conversation_key = op->>'key' AND status = 'armed' AND step_instance <> (op->>'stepInstance')::bigint;
    WHEN 'settle-timers' THEN
      UPDATE timers SET status = op->>'status', reason = op->>'reason', settled_at = (op->>'now')::bigint
      WHERE conversation_key = op->>'key' AND status = 'armed';
    WHEN 'drop-calls' THEN
      UPDATE outbox SET status = 'dropped', error = op->>'reason', finished_at = (op->>'now')::bigint
      WHERE conversation_key = op->>'key' AND status = 'pending';
      GET DIAGNOSTICS n = ROW_COUNT;
      dropped := dropped + n;
    WHEN 'settle' THEN
      UPDATE inbox SET status = op->>'status', error = op->>'reason', processed_at = (op->>'now')::bigint,
        conversation_key = coalesce(conversation_key, op->>'key'), attempts = attempts + 1
      WHERE id = (op->>'id')::bigint AND status = 'pending';
    WHEN 'step-log' THEN
      r := op->'row';
      INSERT INTO step_log (conversation_key, step_instance, session_revision, flow_id, flow_version, step, event, n, at)
      VALUES (r->>'conversationKey', (r->>'stepInstance')::bigint, (r->>'sessionRevision')::bigint, r->>'flowId',
        r->>'flowVersion', r->>'step', r->>'event', (r->>'n')::integer, (r->>'at')::bigint);
    WHEN 'task' THEN
      r := op->'row';
      INSERT INTO tasks (partition, conversation_key, revision, step_instance, name, ref, input, scope, policy,
        chat_id, idempotency_key, run_after, created_at)
      VALUES (part, r->>'conversationKey', (r->>'revision')::bigint, (r->>'stepInstance')::bigint, r->>'name',
        r->>'ref', r->>'input', r->>'scope', r->>'policy', (r->>'chatId')::bigint, r->>'idempotencyKey',
        (r->>'createdAt')::bigint, (r->>'createdAt')::bigint);
    WHEN 'cancel-task' THEN
      PERFORM botflow_cancel_tasks(op->>'key', op->>'ref', op->>'reason', (op->>'now')::bigint, part);
    WHEN 'cancel-tasks' THEN
      PERFORM botflow_cancel_tasks(op->>'key', NULL, op->>'reason', (op->>'now')::bigint, part);
    ELSE
      RAISE EXCEPTION 'unknown write %', op->>'kind';
    END CASE;
  END LOOP;
  RETURN dropped;
END $$;
