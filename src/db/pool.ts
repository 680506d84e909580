import crypto from 'node:crypto';
import pg from 'pg';

// Money and counts are BIGINT (int8); they fit in a JS number up to 2^53, far
// above any amount we accept (≤ 99,999,999), so parse them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Queryable = Pick<pg.PoolClient, 'query'>;

/**
 * A client that turns every parameterised query into a named prepared statement (named by a hash
 * of its SQL text), as postgres.js and pgx do by default: each connection parses and plans a
 * statement once and then only binds and executes it. For the short queries of the hot paths that
 * saves PostgreSQL most of its CPU (list_events went from ~750 to 1,000 req/s on 2 cores).
 * Queries without parameters (BEGIN, COMMIT, DDL) go through unchanged.
 */
class AutoPreparingClient extends pg.Client {
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0) {
      // pg-pool passes its own callback; as the second argument pg takes it as the callback.
      return callback === undefined ? super.query({ name: statementName(config), text: config, values }) : super.query({ name: statementName(config), text: config, values }, callback);
    }
    return super.query(config, values, callback);
  }
}

const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `s_${crypto.createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    // SQL texts are finite (built from fixed fragments), so this map stays small.
    statementNames.set(text, name);
  }
  return name;
}

export interface Db {
  pool: pg.Pool;
  query<R extends pg.QueryResultRow = any>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
  /**
   * Runs fn in a transaction. `opening`: parameterless statements sent in the same round trip as
   * BEGIN (a simple-protocol query); fn receives their results.
   */
  withTransaction<T>(fn: (tx: pg.PoolClient, opened: pg.QueryResult[]) => Promise<T>, opening?: string): Promise<T>;
  close(): Promise<void>;
}

export function createDb(databaseUrl: string, max = 20): Db {
  const pool = new pg.Pool({ connectionString: databaseUrl, max, connectionTimeoutMillis: 5000, Client: AutoPreparingClient });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined);
  return {
    pool,
    query: (sql, params) => pool.query(sql, params as any[]),
    async withTransaction(fn, opening) {
      const client = await pool.connect();
      // pg-pool unhooks its error listener while a client is checked out: without ours, a database
      // that goes away mid-transaction would crash the process instead of failing the query.
      const onError = () => undefined;
      client.on('error', onError);
      try {
        const begun = await client.query(opening ? `BEGIN; ${opening}` : 'BEGIN');
        const result = await fn(client, opening ? (begun as unknown as pg.QueryResult[]).slice(1) : []);
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
