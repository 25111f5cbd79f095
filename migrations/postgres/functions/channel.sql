-- The notification channel of `kind` (inbox, outbox, leases) for the bot whose schema the statement runs in
-- (a schema per bot: src/store/postgres/shared.ts computes the same names to LISTEN): botflow_<kind> in the
-- default schema (public), botflow_<kind>_<schema> in another, botflow_<kind>#<md5 of schema> when that
-- would be over PostgreSQL's 63 bytes.
CREATE OR REPLACE FUNCTION botflow_channel(kind text) RETURNS text LANGUAGE sql STABLE AS
$$ SELECT CASE
  WHEN current_schema() = 'public' THEN 'botflow_' || kind
  WHEN octet_length(current_schema()) + octet_length(kind) + 9 <= 63 THEN 'botflow_' || kind || '_' || current_schema()
  ELSE 'botflow_' || kind || '#' || md5(current_schema())
END $$;
