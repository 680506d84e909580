import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createDb, type Db } from '../src/db/pool';
import { migrate } from '../src/db/migrate';
import { createAccount, createApiKey } from '../src/domain/accounts';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../src/dev/embedded-postgres';
import { findBinary } from '../src/dev/temporal-binaries';
import { startTemporalDevServer, stopChild } from '../src/dev/temporal-dev-server';
import { freePort } from '../test/support/ports';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

/** BENCH_PROFILE_DIR: run the API and the worker under V8's CPU profiler, one .cpuprofile each on exit. */
function nodeArgs(): string[] {
  const dir = process.env.BENCH_PROFILE_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(dir)}`] : [];
}

export interface BenchStack {
  tmp: string;
  pg: EmbeddedPostgresHandle;
  temporalAddress: string;
  taskQueue: string;
  db: Db;
  client: Client;
  /** Environment of the API process, for starting more of them. */
  apiEnv: NodeJS.ProcessEnv;
  api: ApiProcess;
  worker: ChildProcess;
  /**
   * Replaces the dev server with a fresh, empty one (same binary, flags and port) and waits until the
   * API and the worker are back on it. The dev server slows down as open workflows pile up (measured:
   * 17.8 → 23.6 ms of its CPU per start after ~4,000 idle workflows), so each ladder starts on a fresh
   * one, and so does the step after a failed one: neither ladder inherits the other's open workflows.
   */
  restartTemporal(): Promise<void>;
  stop(): Promise<void>;
}

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The same stack as `npm start` and the jest global setup: embedded PostgreSQL in a temporary
 * directory, an in-memory Temporal dev server, then the API and the worker as separate
 * processes (as in production), all on free loopback ports. Logs go to files under the temporary
 * directory so a slow pipe never throttles the processes being measured.
 */
export async function startBenchStack(opts: { rateLimitPerSecond: number; log: (line: string) => void }): Promise<BenchStack> {
  for (const kind of ['cli', 'testServer'] as const) {
    const found = findBinary(kind);
    if (found) process.env[kind === 'cli' ? 'TEMPORAL_CLI_PATH' : 'TEMPORAL_TEST_SERVER_PATH'] = found;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-bench-'));
  fs.chmodSync(tmp, 0o777);
  const stoppers: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  try {
    opts.log('starting PostgreSQL and Temporal…');
    const temporalPort = await freePort();
    const [pg, firstTemporal] = await Promise.all([
      startEmbeddedPostgres({ dataDir: path.join(tmp, 'pg'), port: await freePort(), persistent: false }),
      startTemporalDevServer({ port: temporalPort }),
    ]);
    let temporal = firstTemporal;
    stoppers.push(pg.stop, () => temporal.stop());
    await migrate(pg.url);
    const taskQueue = 'payments-bench';
    const baseEnv: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: pg.url,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      MIGRATE_ON_START: 'false',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      HOST: '127.0.0.1',
    };
    opts.log('starting the worker and the API…');
    const apiEnv = { ...baseEnv, RATE_LIMIT_PER_SECOND: String(opts.rateLimitPerSecond) };
    const [worker, api] = await Promise.all([startWorkerProcess(baseEnv, path.join(tmp, 'worker.log')), startApiProcess(apiEnv, path.join(tmp, 'api.log'))]);
    stoppers.push(() => stopChild(worker), api.stop);
    const db = createDb(pg.url, 10);
    stoppers.push(() => db.close());
    const connection = await Connection.connect({ address: temporal.address });
    stoppers.push(() => connection.close());
    const client = new Client({ connection, namespace: 'default' });
    const restartTemporal = async () => {
      await temporal.stop();
      temporal = await startTemporalDevServer({ port: temporalPort });
      await untilServing(api.url, client, taskQueue);
    };
    return { tmp, pg, temporalAddress: temporal.address, taskQueue, db, client, apiEnv, api, worker, restartTemporal, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Until the API's health check passes and the worker completes a workflow on the current dev server. */
async function untilServing(apiUrl: string, client: Client, taskQueue: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const health = await fetch(`${apiUrl}/healthz`);
      if (!health.ok) throw new Error(`API /healthz ${health.status}`);
      await client.workflow.execute('idleWorkflow', { taskQueue, workflowId: `bench-ready-${crypto.randomUUID()}`, args: [1], workflowExecutionTimeout: '5 seconds' });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`API and worker not serving on the new dev server after 60 s: ${(err as Error).message}`);
      await sleep(250);
    }
  }
}

/** An API process (`src/api.ts`) on a free port; resolves once /healthz answers 200. */
export async function startApiProcess(env: NodeJS.ProcessEnv, logFile: string): Promise<ApiProcess> {
  const port = await freePort();
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(TSX, [...nodeArgs(), path.join(ROOT, 'src', 'api.ts')], { env: { ...env, PORT: String(port) }, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`api exited with ${child.exitCode}:\n${tail(logFile)}`);
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`api did not become healthy within 60 s:\n${tail(logFile)}`);
    }
    await sleep(200);
  }
  return { url, child, stop: () => stopChild(child) };
}

/** A worker process (`src/worker.ts`); resolves once it logs "worker running". */
async function startWorkerProcess(env: NodeJS.ProcessEnv, logFile: string): Promise<ChildProcess> {
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(TSX, [...nodeArgs(), path.join(ROOT, 'src', 'worker.ts')], { env, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  const deadline = Date.now() + 120_000;
  while (!fs.readFileSync(logFile, 'utf8').includes('worker running')) {
    if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}:\n${tail(logFile)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`worker did not start within 120 s:\n${tail(logFile)}`);
    }
    await sleep(250);
  }
  return child;
}

/** A fresh account with a sandbox key: each scenario gets its own, so their data never mix. */
export async function benchAccount(db: Db, name: string): Promise<{ accountId: string; secret: string }> {
  const account = await createAccount(db.pool, name);
  const { secret } = await createApiKey(db.pool, { accountId: account.id, livemode: false, name });
  return { accountId: account.id, secret };
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').slice(-4000);
  } catch {
    return '';
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
