/**
 * Migrated test databases, used again: a test's `drop()` empties its database back to the state of the
 * run's migrated template instead of dropping it, and the worker's next `migratedDatabase()` takes it.
 * On a loaded machine CREATE DATABASE and DROP DATABASE took 0.2-1.5 s each (the server writes and
 * fsyncs a whole database); emptying the tables takes a tenth of that. A test still starts from what a new
 * copy of the template holds, whichever test had the database before:
 *
 * - every table but schema_migrations is emptied and every sequence restarted (ids start at 1 again);
 * - a database with a connection still open when its test dropped it (a pool the test did not close,
 *   which could write into the next test's tables) is dropped as before (WITH (FORCE)), not used again;
 * - so is one whose schema (tables, columns, indexes, constraints, functions, triggers, the migrations
 *   recorded) no longer matches the template's fingerprint, taken by the global setup (postgres-setup.ts);
 * - so is one whose emptying fails for any reason.
 *
 * The databases left in a worker's list at the end of the run are dropped by the global setup's teardown
 * (they are named after the template). Without a template (the e2e project) nothing is used again.
 */
import pg from 'pg';
import { eventually } from './eventually.ts';

/** One text that changes with any change of the public schema or of the migrations recorded. */
export const SCHEMA_FINGERPRINT_SQL = `SELECT md5(string_agg(item, E'\\n' ORDER BY item)) AS fingerprint FROM (
  SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' ||
    coalesce(column_default, '') AS item FROM information_schema.columns WHERE table_schema = 'public'
  UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
  UNION ALL SELECT 'constraint ' || c.conrelid::regclass::text || ' ' || pg_get_constraintdef(c.oid)
    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'
  UNION ALL SELECT 'function ' || p.oid::regprocedure::text || ' ' || md5(pg_get_functiondef(p.oid))
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND p.prokind = 'f'
  UNION ALL SELECT 'trigger ' || pg_get_triggerdef(t.oid) FROM pg_trigger t
    JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND NOT t.tgisinternal
  UNION ALL SELECT 'sequence ' || sequencename FROM pg_sequences WHERE schemaname = 'public'
  UNION ALL SELECT 'migration ' || version || ' ' || name FROM schema_migrations
) AS schema`;

/** The databases this worker may use again, by URL. */
const idle: string[] = [];

/** A database emptied by an earlier test of this worker, if there is one. */
export function takeEmptied(): string | undefined {
  return idle.pop();
}

/**
 * Empties the database at `url` back to the template's state and lists it for the next test; answers
 * false (the caller drops it) when it cannot be used again.
 */
export async function emptyForReuse(url: string, fingerprint: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    // A pool the test closed may take a moment to leave the server's list (its backends exit on their own).
    const alone = async () =>
      (
        await client.query(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        )
      ).rows[0].n === 0;
    if (
      !(await eventually('the database to have no other connection', alone, {
        timeoutMs: 300,
        everyMs: 10,
      }).catch(() => false))
    )
      return false;
    if ((await client.query(SCHEMA_FINGERPRINT_SQL)).rows[0].fingerprint !== fingerprint) return false;
    const tables = await client.query(
      "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'",
    );
    const sequences = await client.query(
      "SELECT quote_ident(sequencename) AS name FROM pg_sequences WHERE schemaname = 'public'",
    );
    await client.query(
      [
        'BEGIN',
        ...tables.rows.map((t) => `DELETE FROM ${t.name}`),
        ...sequences.rows.map((s) => `ALTER SEQUENCE ${s.name} RESTART`),
        'COMMIT',
      ].join(';\n'),
    );
    idle.push(url);
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
