-- The person-level writes of a planned event (as SQLite's store/campaigns/person-writes.ts).
CREATE OR REPLACE FUNCTION botflow_apply_person(w jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  CASE w->>'kind'
  WHEN 'tags' THEN
    DELETE FROM person_tags WHERE conversation_key = w->>'key'
      AND tag IN (SELECT jsonb_array_elements_text(w->'remove'));
    INSERT INTO person_tags (conversation_key, tag, tagged_at)
      SELECT w->>'key', t, (w->>'at')::bigint FROM jsonb_array_elements_text(w->'add') t
      ON CONFLICT (conversation_key, tag) DO NOTHING;
  WHEN 'left' THEN
    INSERT INTO people_left (conversation_key, reason, left_at) VALUES (w->>'key', w->>'reason', (w->>'at')::bigint)
      ON CONFLICT (conversation_key) DO UPDATE SET reason = excluded.reason, left_at = excluded.left_at;
  WHEN 'recipient' THEN
    UPDATE campaign_recipients SET status = w->>'status', reason = w->>'reason', settled_at = (w->>'at')::bigint
      WHERE campaign_id = w->>'campaignId' AND conversation_key = w->>'key' AND status = 'released';
  END CASE;
END $$;
