-- Time as every process agrees on it: the database's clock, in ms since the epoch.
CREATE OR REPLACE FUNCTION botflow_now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS
$$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;
