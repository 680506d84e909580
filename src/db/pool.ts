import pg from 'pg';

// Money and counts are BIGINT (int8); they fit in a JS number up to 2^53, far
// above any amount we accept (≤ 99,999,999), so parse them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Queryable = Pick<pg.PoolClient, 'query'>;

/**
 * A named prepared statement for a query on a hot path: each connection parses and plans it once
 * and then only binds and executes it, which saves PostgreSQL most of its CPU for short queries.
 * The name must be unique per distinct SQL text.
 */
export function preparedStatement(name: string, text: string): (values: unknown[]) => pg.QueryConfig {
  return (values) => ({ name, text, values });
}

export interface Db {
  pool: pg.Pool;
  query<R extends pg.QueryResultRow = any>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
  withTransaction<T>(fn: (tx: pg.PoolClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function createDb(databaseUrl: string, max = 20): Db {
  const pool = new pg.Pool({ connectionString: databaseUrl, max, connectionTimeoutMillis: 5000 });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined);
  return {
    pool,
    query: (sql, params) => pool.query(sql, params as any[]),
    async withTransaction(fn) {
      const client = await pool.connect();
      // pg-pool unhooks its error listener while a client is checked out: without ours, a database
      // that goes away mid-transaction would crash the process instead of failing the query.
      const onError = () => undefined;
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.removeListener('error', onError);
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
