-- A planned batch (src/store/write-plan.ts PlannedWrites[] with each event's partition) in the caller's
-- transaction. `owner`: the partitions' leases must be held by it (else BF002: nothing is written).
-- careful = false: every event or none (an error rolls the batch back and the caller tries carefully);
-- writes of one kind go in one statement for the whole batch where the order of its events cannot matter.
-- careful = true: one subtransaction per event; a revision conflict holds the event (and the later events of
-- its conversation), another error fails it with the reason. Errors of the environment are raised.
CREATE OR REPLACE FUNCTION botflow_apply_batch(owner text, partitions integer[], batch jsonb, careful boolean, now_ms bigint)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  ev jsonb;
  results jsonb[] := '{}';
  held text[] := '{}';
  done_ids bigint[] := '{}';
  key text;
  dropped integer;
  held_count integer;
  bulk text[] := '{}';
  n integer;
  expected integer;
  timers_at_once boolean;
  all_bulk boolean := false;
BEGIN
  IF owner IS NOT NULL THEN
    SELECT count(*) INTO held_count FROM (
      SELECT 1 FROM leases l
      WHERE l.name = ANY (SELECT 'partition:' || p FROM unnest(partitions) p)
        AND l.owner = botflow_apply_batch.owner AND l.expires_at > botflow_now_ms()
      FOR SHARE) x;
    IF held_count <> cardinality(partitions) THEN
      RAISE EXCEPTION 'this process no longer owns every partition of the batch' USING ERRCODE = 'BF002';
    END IF;
  END IF;
  IF NOT careful THEN
    -- drop-calls reads the outbox: a batch with one writes its calls in place.
    IF NOT jsonb_path_exists(batch, '$[*].ops[*] ? (@.kind == "drop-calls")') THEN
      bulk := '{call,step-log}';
    END IF;
    -- Sessions at once when each conversation has one session write in the batch (a later one would start
    -- from the revision the earlier one wrote).
    SELECT count(*), count(DISTINCT o.w->'row'->>'conversationKey') INTO expected, n
    FROM jsonb_array_elements(batch) e(ev), LATERAL jsonb_array_elements(e.ev->'ops') o(w)
    WHERE o.w->>'kind' = 'session';
    IF n = expected THEN
      bulk := bulk || '{session}'::text[];
    END IF;
    -- Timers at once when, for every conversation, one event of the batch touches them: at most one discard
    -- (or settle) of its armed timers, before any arm; no name armed twice; no cancel.
    WITH t AS (
      SELECT e.i, o.j, o.w->>'kind' AS kind, coalesce(o.w->>'key', o.w->'timer'->>'conversationKey') AS conv,
        o.w->'timer'->>'name' AS name
      FROM jsonb_array_elements(batch) WITH ORDINALITY e(ev, i),
        LATERAL jsonb_array_elements(e.ev->'ops') WITH ORDINALITY o(w, j)
      WHERE o.w->>'kind' IN ('arm', 'cancel', 'discard', 'settle-timers')
    ), k AS (
      SELECT count(DISTINCT i) AS events, count(*) FILTER (WHERE kind IN ('discard', 'settle-timers')) AS settles,
        count(*) FILTER (WHERE kind = 'cancel') AS cancels, count(*) FILTER (WHERE kind = 'arm') AS arms,
        count(DISTINCT name) FILTER (WHERE kind = 'arm') AS names,
        max(j) FILTER (WHERE kind IN ('discard', 'settle-timers')) AS last_settle,
        min(j) FILTER (WHERE kind = 'arm') AS first_arm
      FROM t GROUP BY conv
    )
    SELECT coalesce(bool_and(events = 1 AND settles <= 1 AND cancels = 0 AND arms = names
      AND (last_settle IS NULL OR first_arm IS NULL OR last_settle < first_arm)), true)
    INTO timers_at_once FROM k;
    IF timers_at_once THEN
      bulk := bulk || '{arm,discard,settle-timers}'::text[];
    END IF;
    -- Cancelling the tasks of the steps left: when the batch starts no task and none of its conversations
    -- has an open one, there is nothing to cancel (one probe for the batch rather than one per event).
    IF NOT jsonb_path_exists(batch, '$[*].ops[*] ? (@.kind == "task")') AND NOT EXISTS (
      SELECT 1 FROM tasks t
      WHERE t.conversation_key IN (
          SELECT o.w->>'key' FROM jsonb_array_elements(batch) e(ev), LATERAL jsonb_array_elements(e.ev->'ops') o(w)
          WHERE o.w->>'kind' IN ('cancel-task', 'cancel-tasks'))
        AND t.status IN ('pending', 'running')) THEN
      bulk := bulk || '{cancel-task,cancel-tasks}'::text[];
    END IF;
    -- Nothing left to write event by event: the events' own calls are skipped.
    SELECT coalesce(bool_and(o.w->>'kind' = ANY (bulk)), true) INTO all_bulk
    FROM jsonb_array_elements(batch) e(ev), LATERAL jsonb_array_elements(e.ev->'ops') o(w);
  END IF;
  FOR ev IN SELECT value FROM jsonb_array_elements(batch) LOOP
    key := ev->>'conversationKey';
    IF NOT careful THEN
      dropped := CASE WHEN all_bulk THEN 0 ELSE botflow_apply_ops(ev->'ops', (ev->>'partition')::integer, bulk) END;
      results := results || jsonb_build_object('status', 'applied', 'dropped', dropped);
      done_ids := done_ids || (ev->>'inboxId')::bigint;
    ELSIF key IS NOT NULL AND key = ANY (held) THEN
      results := results || '{"status":"held"}'::jsonb;
    ELSE
      BEGIN
        dropped := botflow_apply_ops(ev->'ops', (ev->>'partition')::integer, '{}'::text[]);
        IF (ev->>'done')::boolean THEN done_ids := done_ids || (ev->>'inboxId')::bigint; END IF;
        results := results || jsonb_build_object('status', 'applied', 'dropped', dropped);
      EXCEPTION WHEN OTHERS THEN
        IF SQLSTATE <> 'BF001' AND left(SQLSTATE, 2) IN ('08', '40', '53', '55', '57', '58', 'BF') THEN RAISE; END IF;
        IF key IS NOT NULL THEN held := held || key; END IF;
        IF SQLSTATE = 'BF001' THEN
          results := results || '{"status":"held"}'::jsonb;
        ELSE
          UPDATE inbox SET status = 'failed', error = SQLERRM, processed_at = now_ms,
            conversation_key = coalesce(conversation_key, key), attempts = attempts + 1
          WHERE id = (ev->>'inboxId')::bigint AND status = 'pending';
          results := results || jsonb_build_object('status', 'failed', 'reason', SQLERRM);
        END IF;
      END;
    END IF;
  END LOOP;
  IF 'session' = ANY (bulk) THEN
    -- The compare-and-swap of every session at once: one row each, or BF001 (the caller then applies the
    -- batch carefully, event by event, and holds the event whose session moved on).
    WITH w AS (
      SELECT o.w->'row' AS r, (o.w->>'expected')::bigint AS expected, coalesce((o.w->>'sameShape')::boolean, false) AS same
      FROM jsonb_array_elements(batch) e(ev), LATERAL jsonb_array_elements(e.ev->'ops') o(w)
      WHERE o.w->>'kind' = 'session'
    ), advanced AS (
      UPDATE sessions s SET state_value = w.r->>'stateValue', snapshot = w.r->>'snapshot',
        revision = (w.r->>'revision')::bigint, step_instance = (w.r->>'stepInstance')::bigint,
        updated_at = (w.r->>'updatedAt')::bigint
      FROM w WHERE w.same AND s.conversation_key = w.r->>'conversationKey'
        AND s.revision = w.expected
      RETURNING 1
    ), replaced AS (
      UPDATE sessions s SET flow_id = w.r->>'flowId', flow_version = w.r->>'flowVersion', status = w.r->>'status',
        state_value = w.r->>'stateValue', snapshot = w.r->>'snapshot', revision = (w.r->>'revision')::bigint,
        step_instance = (w.r->>'stepInstance')::bigint, started_revision = (w.r->>'startedRevision')::bigint,
        chat_id = (w.r->>'chatId')::bigint, user_id = (w.r->>'userId')::bigint, locale = w.r->>'locale',
        started_at = (w.r->>'startedAt')::bigint, updated_at = (w.r->>'updatedAt')::bigint
      FROM w WHERE NOT w.same AND w.expected IS NOT NULL AND s.conversation_key = w.r->>'conversationKey'
        AND s.revision = w.expected
      RETURNING 1
    ), started AS (
      INSERT INTO sessions (conversation_key, flow_id, flow_version, status, state_value, snapshot, revision,
        step_instance, started_revision, chat_id, user_id, locale, started_at, updated_at)
      SELECT r->>'conversationKey', r->>'flowId', r->>'flowVersion', r->>'status', r->>'stateValue',
        r->>'snapshot', (r->>'revision')::bigint, (r->>'stepInstance')::bigint, (r->>'startedRevision')::bigint,
        (r->>'chatId')::bigint, (r->>'userId')::bigint, r->>'locale', (r->>'startedAt')::bigint,
        (r->>'updatedAt')::bigint
      FROM w WHERE NOT w.same AND w.expected IS NULL
      ON CONFLICT (conversation_key) DO NOTHING
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM advanced) + (SELECT count(*) FROM replaced) + (SELECT count(*) FROM started)
    INTO n;
    IF n <> expected THEN
      RAISE EXCEPTION 'a session of the batch is no longer at the revision it was planned on' USING ERRCODE = 'BF001';
    END IF;
  END IF;
  IF 'arm' = ANY (bulk) THEN
    WITH w AS (
      SELECT e.i, o.j, o.w
      FROM jsonb_array_elements(batch) WITH ORDINALITY e(ev, i),
        LATERAL jsonb_array_elements(e.ev->'ops') WITH ORDINALITY o(w, j)
      WHERE o.w->>'kind' IN ('arm', 'discard', 'settle-timers')
    ), settled AS (
      UPDATE timers t SET status = w.w->>'status', reason = w.w->>'reason', settled_at = (w.w->>'now')::bigint
      FROM w WHERE w.w->>'kind' = 'settle-timers' AND t.conversation_key = w.w->>'key' AND t.status = 'armed'
      RETURNING 1
    ), discarded AS (
      UPDATE timers t SET status = 'discarded', reason = w.w->>'reason', settled_at = (w.w->>'now')::bigint
      FROM w WHERE w.w->>'kind' = 'discard' AND t.conversation_key = w.w->>'key' AND t.status = 'armed'
        AND t.step_instance <> (w.w->>'stepInstance')::bigint
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM settled) + (SELECT count(*) FROM discarded) INTO n;
    -- After the discards (a statement of its own: a CTE's updates are not seen by its siblings).
    INSERT INTO timers (partition, conversation_key, name, due_at, fire_at, step_instance, armed_revision, armed_at)
    SELECT (e.ev->>'partition')::integer, r->>'conversationKey', r->>'name', (r->>'dueAt')::bigint,
      (r->>'dueAt')::bigint, (r->>'stepInstance')::bigint, (r->>'revision')::bigint, (r->>'now')::bigint
    FROM jsonb_array_elements(batch) WITH ORDINALITY e(ev, i),
      LATERAL jsonb_array_elements(e.ev->'ops') WITH ORDINALITY o(w, j),
      LATERAL (SELECT o.w->'timer') x(r)
    WHERE o.w->>'kind' = 'arm'
    ORDER BY e.i, o.j
    ON CONFLICT (conversation_key, name) WHERE status = 'armed' DO UPDATE SET due_at = excluded.due_at,
      fire_at = excluded.fire_at, step_instance = excluded.step_instance,
      armed_revision = excluded.armed_revision, armed_at = excluded.armed_at;
  END IF;
  IF 'call' = ANY (bulk) THEN
    INSERT INTO outbox (partition, conversation_key, revision, seq, order_key, chat_id, kind, op, args, ref,
      priority, idempotency_key, created_at)
    SELECT (e.ev->>'partition')::integer, r->>'conversationKey', (r->>'revision')::bigint, (r->>'seq')::integer,
      r->>'orderKey', (r->>'chatId')::bigint, r->>'kind', r->>'op', r->>'args', r->>'ref', r->>'priority',
      coalesce(r->>'idempotencyKey', (r->>'conversationKey') || ':' || (r->>'revision') || ':' || (r->>'seq')),
      (r->>'createdAt')::bigint
    FROM jsonb_array_elements(batch) WITH ORDINALITY e(ev, i),
      LATERAL jsonb_array_elements(e.ev->'ops') WITH ORDINALITY o(w, j),
      LATERAL (SELECT o.w->'row') x(r)
    WHERE o.w->>'kind' = 'call'
    ORDER BY e.i, o.j;
  END IF;
  IF 'step-log' = ANY (bulk) THEN
    INSERT INTO step_log (conversation_key, step_instance, session_revision, flow_id, flow_version, step, event, n, at, sample)
    SELECT r->>'conversationKey', (r->>'stepInstance')::bigint, (r->>'sessionRevision')::bigint, r->>'flowId',
      r->>'flowVersion', r->>'step', r->>'event', (r->>'n')::integer, (r->>'at')::bigint, r->>'sample'
    FROM jsonb_array_elements(batch) WITH ORDINALITY e(ev, i),
      LATERAL jsonb_array_elements(e.ev->'ops') WITH ORDINALITY o(w, j),
      LATERAL (SELECT o.w->'row') x(r)
    WHERE o.w->>'kind' = 'step-log'
    ORDER BY e.i, o.j;
  END IF;
  UPDATE inbox SET status = 'done', processed_at = now_ms, attempts = attempts + 1
  WHERE id = ANY (done_ids) AND status = 'pending';
  RETURN to_jsonb(results);
END $$;
