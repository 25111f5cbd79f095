-- One planned event's writes (src/store/write-plan.ts WriteOp[], as JSON), in order. Raises BF001 when
-- a session moved on (compare-and-swap). Returns how many unsent calls it dropped. `skip`: kinds of write
-- the batch writes for all its events at once (see botflow_apply_batch).
CREATE OR REPLACE FUNCTION botflow_apply_ops(ops jsonb, part integer, skip text[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  w jsonb;
  r jsonb;
  n integer;
  dropped integer := 0;
BEGIN
  FOR w IN SELECT value FROM jsonb_array_elements(ops) LOOP
    CONTINUE WHEN w->>'kind' = ANY (skip);  -- written for the whole batch by botflow_apply_batch
    CASE w->>'kind'
    WHEN 'session' THEN
      r := w->'row';
      IF (w->>'sameShape')::boolean THEN
        -- An advance (SessionStore.advance): only the step moved; the other columns stay as stored.
        UPDATE sessions SET state_value = r->>'stateValue', snapshot = r->>'snapshot',
          revision = (r->>'revision')::bigint, step_instance = (r->>'stepInstance')::bigint,
          updated_at = (r->>'updatedAt')::bigint
        WHERE conversation_key = r->>'conversationKey' AND revision = (w->>'expected')::bigint;
      ELSIF w->'expected' IS NULL OR jsonb_typeof(w->'expected') = 'null' THEN
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
        WHERE conversation_key = r->>'conversationKey' AND revision = (w->>'expected')::bigint;
      END IF;
      GET DIAGNOSTICS n = ROW_COUNT;
      IF n <> 1 THEN
        RAISE EXCEPTION 'session % is no longer at revision %: another writer committed a step first',
          r->>'conversationKey', coalesce(w->>'expected', '0') USING ERRCODE = 'BF001';
      END IF;
    WHEN 'call' THEN
      r := w->'row';
      INSERT INTO outbox (partition, conversation_key, revision, seq, order_key, chat_id, kind, op, args, ref,
        priority, idempotency_key, created_at)
      VALUES (part, r->>'conversationKey', (r->>'revision')::bigint, (r->>'seq')::integer, r->>'orderKey',
        (r->>'chatId')::bigint, r->>'kind', r->>'op', r->>'args', r->>'ref', r->>'priority',
        coalesce(r->>'idempotencyKey', (r->>'conversationKey') || ':' || (r->>'revision') || ':' || (r->>'seq')),
        (r->>'createdAt')::bigint);
    WHEN 'arm' THEN
      r := w->'timer';
      INSERT INTO timers (partition, conversation_key, name, due_at, fire_at, step_instance, armed_revision, armed_at)
      VALUES (part, r->>'conversationKey', r->>'name', (r->>'dueAt')::bigint, (r->>'dueAt')::bigint,
        (r->>'stepInstance')::bigint, (r->>'revision')::bigint, (r->>'now')::bigint)
      ON CONFLICT (conversation_key, name) WHERE status = 'armed' DO UPDATE SET due_at = excluded.due_at,
        fire_at = excluded.fire_at, step_instance = excluded.step_instance,
        armed_revision = excluded.armed_revision, armed_at = excluded.armed_at;
    WHEN 'cancel' THEN
      UPDATE timers SET status = 'cancelled', reason = w->>'reason', settled_at = (w->>'now')::bigint
      WHERE conversation_key = w->>'key' AND name = w->>'name' AND status = 'armed';
    WHEN 'discard' THEN
      UPDATE timers SET status = 'discarded', reason = w->>'reason', settled_at = (w->>'now')::bigint
      WHERE conversation_key = w->>'key' AND status = 'armed' AND step_instance <> (w->>'stepInstance')::bigint;
    WHEN 'settle-timers' THEN
      UPDATE timers SET status = w->>'status', reason = w->>'reason', settled_at = (w->>'now')::bigint
      WHERE conversation_key = w->>'key' AND status = 'armed';
    WHEN 'drop-calls' THEN
      -- `keep`: operations whose unsent calls stay (an interrupted flow's callback answers).
      UPDATE outbox SET status = 'dropped', error = w->>'reason', finished_at = (w->>'now')::bigint
      WHERE conversation_key = w->>'key' AND status = 'pending'
        AND op <> ALL (ARRAY(SELECT jsonb_array_elements_text(coalesce(w->'keep', '[]'::jsonb))));
      GET DIAGNOSTICS n = ROW_COUNT;
      dropped := dropped + n;
    WHEN 'settle' THEN
      UPDATE inbox SET status = w->>'status', error = w->>'reason', processed_at = (w->>'now')::bigint,
        conversation_key = coalesce(conversation_key, w->>'key'), attempts = attempts + 1
      WHERE id = (w->>'id')::bigint AND status = 'pending';
    WHEN 'step-log' THEN
      r := w->'row';
      INSERT INTO step_log (conversation_key, step_instance, session_revision, flow_id, flow_version, step, event, n, at, sample)
      VALUES (r->>'conversationKey', (r->>'stepInstance')::bigint, (r->>'sessionRevision')::bigint, r->>'flowId',
        r->>'flowVersion', r->>'step', r->>'event', (r->>'n')::integer, (r->>'at')::bigint, r->>'sample');
    WHEN 'task' THEN
      r := w->'row';
      INSERT INTO tasks (partition, conversation_key, revision, step_instance, name, ref, input, scope, policy,
        chat_id, idempotency_key, run_after, created_at)
      VALUES (part, r->>'conversationKey', (r->>'revision')::bigint, (r->>'stepInstance')::bigint, r->>'name',
        r->>'ref', r->>'input', r->>'scope', r->>'policy', (r->>'chatId')::bigint, r->>'idempotencyKey',
        coalesce((r->>'runAfter')::bigint, (r->>'createdAt')::bigint), (r->>'createdAt')::bigint);
    -- Most steps left have no open task: an index probe first, the cancelling statement only if one is open.
    WHEN 'cancel-task' THEN
      IF EXISTS (SELECT 1 FROM tasks WHERE conversation_key = w->>'key' AND status IN ('pending', 'running')) THEN
        PERFORM botflow_cancel_tasks(w->>'key', w->>'ref', w->>'reason', (w->>'now')::bigint, part);
      END IF;
    WHEN 'cancel-tasks' THEN
      IF EXISTS (SELECT 1 FROM tasks WHERE conversation_key = w->>'key' AND status IN ('pending', 'running')) THEN
        PERFORM botflow_cancel_tasks(w->>'key', NULL, w->>'reason', (w->>'now')::bigint, part);
      END IF;
    WHEN 'tags' THEN
      PERFORM botflow_apply_person(w);
    WHEN 'left' THEN
      PERFORM botflow_apply_person(w);
    WHEN 'recipient' THEN
      PERFORM botflow_apply_person(w);
    ELSE
      RAISE EXCEPTION 'unknown write %', w->>'kind';
    END CASE;
  END LOOP;
  RETURN dropped;
END $$;
