import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../../src/db/migrate';
import { startEmbeddedPostgres } from '../../src/dev/embedded-postgres';
import { findBinary } from '../../src/dev/temporal-binaries';
import { startTemporalDevServer, stopChild } from '../../src/dev/temporal-dev-server';
import { freePort } from './ports';
import { startTsx } from './processes';

/**
 * Starts the real stack once for the whole jest run: embedded PostgreSQL in a temporary
 * directory, a Temporal dev server (in memory) and a worker process. Test files read the
 * addresses from the environment (TEST_DATABASE_URL, TEST_TEMPORAL_ADDRESS, TEST_TASK_QUEUE).
 */
export default async function globalSetup(): Promise<void> {
  // Resolve (and if needed install) both Temporal binaries before anything else, so a failure is one clear message.
  for (const kind of ['cli', 'testServer'] as const) {
    const found = findBinary(kind);
    if (found) process.env[kind === 'cli' ? 'TEMPORAL_CLI_PATH' : 'TEMPORAL_TEST_SERVER_PATH'] = found;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-test-'));
  fs.chmodSync(tmp, 0o777);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pg'), port: await freePort(), persistent: false });
  await migrate(pg.url);
  const temporal = await startTemporalDevServer({ port: await freePort() });
  const taskQueue = 'payments-test';
  const workerEnv = {
    ...process.env,
    DATABASE_URL: pg.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    LOG_LEVEL: 'info',
    SANDBOX_USDC_CONFIRM_SECONDS: '1',
    SANDBOX_SEPA_CONFIRM_SECONDS: '2',
    SANDBOX_SETTLEMENT_SECONDS: '1',
  };
  const worker = await startTsx('src/worker.ts', workerEnv, 'worker running');

  Object.assign(process.env, {
    TEST_DATABASE_URL: pg.url,
    TEST_TEMPORAL_ADDRESS: temporal.address,
    TEST_TASK_QUEUE: taskQueue,
    TEST_TMP_DIR: tmp,
  });
  (globalThis as any).__STACK__ = { pg, temporal, worker, tmp };
}

export { stopChild };
