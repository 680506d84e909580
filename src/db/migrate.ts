import path from 'node:path';
import { runner } from 'node-pg-migrate';

export const MIGRATIONS_DIR = path.join(__dirname, 'migrations');

/** Applies the ordered SQL files in src/db/migrations. node-pg-migrate takes an advisory lock, so concurrent API processes are safe. */
export async function migrate(databaseUrl: string): Promise<void> {
  await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    count: Infinity,
    log: () => undefined,
  });
}

if (require.main === module) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write('DATABASE_URL is required\n');
    process.exit(1);
  }
  migrate(url).then(
    () => process.stdout.write('migrations applied\n'),
    (err) => {
      process.stderr.write(`migration failed: ${err.message}\n`);
      process.exit(1);
    },
  );
}
