import { startApi, type RunningApi } from '../../src/api';
import type { AppOptions } from '../../src/http/app';
import { loadConfig, type Config } from '../../src/config';
import { createAccount, createApiKey, markAccountVerified } from '../../src/domain/accounts';
import type { Scope } from '../../src/domain/scopes';
import { createDb, type Db } from '../../src/db/pool';
import { publicId } from '../../src/ids';

/** Configuration pointing at the stack that jest's global setup started. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: process.env.TEST_DATABASE_URL!,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
    TEMPORAL_TASK_QUEUE: process.env.TEST_TASK_QUEUE!,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    MIGRATE_ON_START: 'false',
    // The same short sandbox delays as the test worker (global-setup.ts).
    SANDBOX_USDC_CONFIRM_SECONDS: '1',
    SANDBOX_SEPA_CONFIRM_SECONDS: '2',
    SANDBOX_SETTLEMENT_SECONDS: '1',
    ...overrides,
  });
}

/** A real API process in this jest worker, listening on a free loopback port. */
export async function startTestApi(overrides: Record<string, string> = {}, options: AppOptions = {}): Promise<RunningApi> {
  const api = await startApi(testConfig(overrides), options);
  if (!overrides.PUBLIC_BASE_URL) {
    // Hand out URLs on the real port (the config was parsed with PORT=0).
    const port = (api.server.address() as { port: number }).port;
    (api.services.config as any).publicBaseUrl = `http://127.0.0.1:${port}${api.services.config.basePath}`;
  }
  return api;
}

let sharedDb: Db | undefined;
export function testDb(): Db {
  sharedDb ??= createDb(process.env.TEST_DATABASE_URL!, 5);
  return sharedDb;
}
export async function closeTestDb(): Promise<void> {
  await sharedDb?.close();
  sharedDb = undefined;
}

export interface TestMerchant {
  accountId: string;
  publicAccountId: string;
  testKey: string;
  liveKey: string;
}

/** A fresh account with a sandbox key and a live key (live works only once verified). */
export async function createMerchant(opts: { verified?: boolean; scopes?: Scope[]; name?: string } = {}): Promise<TestMerchant> {
  const db = testDb().pool;
  const account = await createAccount(db, opts.name ?? 'Test merchant');
  if (opts.verified) await markAccountVerified(db, account.id);
  const test = await createApiKey(db, { accountId: account.id, livemode: false, scopes: opts.scopes });
  const live = await createApiKey(db, { accountId: account.id, livemode: true, scopes: opts.scopes });
  return { accountId: account.id, publicAccountId: publicId('account', account.id), testKey: test.secret, liveKey: live.secret };
}

/** fetch with JSON in and out. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}
