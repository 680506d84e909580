import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrate } from '../db/migrate';
import { createAccount, createApiKey, markAccountVerified, serializeAccount, serializeApiKey } from '../domain/accounts';
import { isScope, type Scope } from '../domain/scopes';
import { parsePublicId } from '../ids';
import { startEmbeddedPostgres } from '../dev/embedded-postgres';
import { localDefaults } from '../dev/local-defaults';

/**
 * Operator command line. Prints JSON on stdout; errors go to stderr with exit code 1.
 *   admin accounts create --name NAME
 *   admin accounts verify ID
 *   admin keys create --account ID --mode test|live [--scopes a,b]
 * Uses DATABASE_URL, else the embedded database of `npm start` (started for the command if it is not running).
 */
const USAGE = `usage:
  admin accounts create --name NAME
  admin accounts verify ACCOUNT_ID
  admin keys create --account ACCOUNT_ID --mode test|live [--scopes a,b]`;

class UsageError extends Error {}

async function run(argv: string[], db: pg.Pool): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: 'string' }, account: { type: 'string' }, mode: { type: 'string' }, scopes: { type: 'string' } },
  });
  const [resource, action, arg] = positionals;
  if (resource === 'accounts' && action === 'create') {
    if (!values.name) throw new UsageError('--name is required');
    return serializeAccount(await createAccount(db, values.name));
  }
  if (resource === 'accounts' && action === 'verify') {
    const id = arg && parsePublicId('account', arg);
    if (!id) throw new UsageError('an account id (acct_…) is required');
    const account = await markAccountVerified(db, id);
    if (!account) throw new UsageError(`no such account: ${arg}`);
    return serializeAccount(account);
  }
  if (resource === 'keys' && action === 'create') {
    const accountId = values.account && parsePublicId('account', values.account);
    if (!accountId) throw new UsageError('--account acct_… is required');
    if (values.mode !== 'test' && values.mode !== 'live') throw new UsageError('--mode must be test or live');
    let scopes: Scope[] | undefined;
    if (values.scopes !== undefined) {
      const list = values.scopes.split(',').map((s) => s.trim()).filter(Boolean);
      const bad = list.filter((s) => !isScope(s));
      if (bad.length || list.length === 0) throw new UsageError(`unknown scopes: ${bad.join(', ') || '(none given)'}`);
      scopes = list as Scope[];
    }
    const exists = await db.query('SELECT 1 FROM accounts WHERE id = $1', [accountId]);
    if (exists.rowCount === 0) throw new UsageError(`no such account: ${values.account}`);
    const { key, secret } = await createApiKey(db, { accountId, livemode: values.mode === 'live', scopes });
    return { ...serializeApiKey(key), secret };
  }
  throw new UsageError(USAGE);
}

async function withDatabase<T>(fn: (db: pg.Pool) => Promise<T>): Promise<T> {
  const local = localDefaults();
  let url = process.env.DATABASE_URL;
  let embedded: Awaited<ReturnType<typeof startEmbeddedPostgres>> | null = null;
  if (!url) {
    url = local.databaseUrl;
    const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
    const running = await probe.connect().then(
      () => true,
      () => false,
    );
    await probe.end().catch(() => undefined);
    if (!running) embedded = await startEmbeddedPostgres({ dataDir: local.pgDataDir, port: local.pgPort });
  }
  await migrate(url);
  const db = new pg.Pool({ connectionString: url, max: 2 });
  try {
    return await fn(db);
  } finally {
    await db.end();
    await embedded?.stop();
  }
}

withDatabase((db) => run(process.argv.slice(2), db)).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    process.exit(0);
  },
  (err) => {
    process.stderr.write(`${err instanceof UsageError ? err.message : `admin failed: ${err?.message ?? err}`}\n`);
    if (err instanceof UsageError && err.message !== USAGE) process.stderr.write(`${USAGE}\n`);
    process.exit(1);
  },
);
