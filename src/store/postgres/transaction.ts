/**
 * The PostgreSQL adapter's one transaction block: BEGIN, the work, COMMIT; ROLLBACK when the work throws
 * (the error goes on unchanged; a failed ROLLBACK is not reported over it). The database's default
 * isolation (READ COMMITTED) and no retry, as each of the blocks it replaced: the statements inside settle
 * conflicts themselves (revision checks, row locks).
 */
import type pg from 'pg';

/** `work` in one transaction on `client`, a connection already held (it stays held). */
export async function transactionOn<T>(
  client: pg.PoolClient,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  try {
    await client.query('BEGIN');
    const out = await work(client);
    await client.query('COMMIT');
    return out;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** `work` in one transaction on a connection of `pool`, released after. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    return await transactionOn(client, work);
  } finally {
    client.release();
  }
}
