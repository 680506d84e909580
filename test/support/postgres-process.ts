import { startEmbeddedPostgres } from '../../src/dev/embedded-postgres';

/**
 * Embedded PostgreSQL in a process of its own, for tests that stop and restart the database
 * (jest test files cannot load the ESM-only embedded-postgres package in-process).
 * Env: PG_DATA_DIR, PG_PORT. Prints "postgres ready <url>"; SIGTERM stops it cleanly.
 */
async function main() {
  const pg = await startEmbeddedPostgres({ dataDir: process.env.PG_DATA_DIR!, port: Number(process.env.PG_PORT) });
  process.stdout.write(`postgres ready ${pg.url}\n`);
  const stop = () => void pg.stop().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
void main();
