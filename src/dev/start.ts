import fs from 'node:fs';
import { startApi } from '../api';
import { loadConfigOrExit } from '../config';
import { createAccount, createApiKey, findActiveKeyBySecret } from '../domain/accounts';
import { startWorker } from '../worker';
import { startEmbeddedPostgres } from './embedded-postgres';
import { localDefaults } from './local-defaults';
import { startTemporalDevServer } from './temporal-dev-server';

/**
 * `npm start`: the whole service on one machine — embedded PostgreSQL, a Temporal dev server
 * with its UI, the worker and the API — with state kept under .data/ (or DATA_DIR).
 */
async function main() {
  const local = localDefaults();
  fs.mkdirSync(local.dataDir, { recursive: true });
  const stoppers: Array<() => Promise<void>> = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\nStopping…\n');
    for (const stop of stoppers.reverse()) await stop().catch((e) => process.stderr.write(`${e?.message ?? e}\n`));
    process.exit(code);
  };
  process.once('SIGINT', () => void stopAll(0));
  process.once('SIGTERM', () => void stopAll(0));

  try {
    const pg = process.env.DATABASE_URL
      ? null
      : await startEmbeddedPostgres({ dataDir: local.pgDataDir, port: local.pgPort });
    if (pg) stoppers.push(pg.stop);
    const temporal = process.env.TEMPORAL_ADDRESS
      ? null
      : await startTemporalDevServer({ port: local.temporalPort, uiPort: local.temporalUiPort, dbFile: local.temporalDbFile });
    if (temporal) stoppers.push(temporal.stop);

    const config = loadConfigOrExit({
      ...process.env,
      DATABASE_URL: process.env.DATABASE_URL ?? pg!.url,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? temporal!.address,
    });
    const api = await startApi(config);
    stoppers.push(() => api.close());
    const worker = await startWorker(config);
    stoppers.push(() => worker.shutdown());
    worker.done.catch((err) => {
      process.stderr.write(`worker stopped: ${err?.message ?? err}\n`);
      void stopAll(1);
    });

    const key = await ensureDevSandboxKey(api.services.db.pool, local.devKeyFile);
    process.stdout.write(
      [
        '',
        'Payment service is running.',
        `  API:          ${config.publicBaseUrl}/v1   (health: ${config.publicBaseUrl}/healthz)`,
        `  Dashboard:    ${config.publicBaseUrl}/dashboard   (sign up there, or use the key below)`,
        `  Temporal UI:  ${config.temporal.uiUrl}`,
        `  Sandbox key:  ${key}`,
        '',
        `  curl ${config.publicBaseUrl}/v1/account -H "Authorization: Bearer ${key}"`,
        '',
        'Press Ctrl-C to stop. Data is kept in ' + local.dataDir,
        '',
      ].join('\n'),
    );
  } catch (err) {
    process.stderr.write(`npm start failed: ${(err as Error).message}\n`);
    await stopAll(1);
  }
}

/** The local merchant's sandbox key is kept in .data/ so every `npm start` prints the same working key. */
async function ensureDevSandboxKey(db: import('pg').Pool, file: string): Promise<string> {
  if (fs.existsSync(file)) {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { secret: string };
    if (await findActiveKeyBySecret(db, saved.secret)) return saved.secret;
  }
  const account = await createAccount(db, 'Local merchant');
  const { secret } = await createApiKey(db, { accountId: account.id, livemode: false, name: 'npm start' });
  fs.writeFileSync(file, JSON.stringify({ account: account.id, secret }), { mode: 0o600 });
  return secret;
}

void main();
