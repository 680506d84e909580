import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { createDb, type Db } from '../../src/db/pool';
import { migrate } from '../../src/db/migrate';
import { createAccount, createApiKey } from '../../src/domain/accounts';
import { startTemporalDevServer, stopChild, type TemporalDevServerHandle } from '../../src/dev/temporal-dev-server';
import { killTree, startTsx } from '../support/processes';
import { freePort } from '../support/ports';
import { startReceiver, waitFor } from '../support/receiver';
import { call } from '../support/stack';

/**
 * Chaos under load, with real processes: kill -9 of the worker, kill -9 of an API process,
 * a restart of the Temporal dev server (SQLite kept), and PostgreSQL stopped for 10 s.
 * Afterwards every payment acknowledged with a 2xx reaches a final state, its events exist
 * exactly once, and every event reaches the webhook receiver at least once.
 * (A receiver down for days is covered in test/workflow/webhook-delivery.test.ts with time skipping.)
 */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-chaos-'));
fs.chmodSync(tmp, 0o777);
let pgPort: number;
let pg: ChildProcess;
let pgUrl: string;
let temporal: TemporalDevServerHandle;
let temporalPort: number;
let db: Db;
let worker: ChildProcess;
const apis: Array<{ port: number; child: ChildProcess }> = [];
let env: NodeJS.ProcessEnv;
const log = (msg: string) => process.stdout.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const startPostgres = () => startTsx('test/support/postgres-process.ts', { ...process.env, PG_DATA_DIR: path.join(tmp, 'pg'), PG_PORT: String(pgPort) }, 'postgres ready');
const startWorker = () => startTsx('src/worker.ts', env, 'worker running');
const startApi = (port: number) => startTsx('src/api.ts', { ...env, PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }, 'api listening');

beforeAll(async () => {
  pgPort = await freePort();
  pg = await startPostgres();
  pgUrl = `postgres://postgres:postgres@127.0.0.1:${pgPort}/payments`;
  await migrate(pgUrl);
  temporalPort = await freePort();
  temporal = await startTemporalDevServer({ port: temporalPort, dbFile: path.join(tmp, 'temporal.sqlite') });
  env = {
    ...process.env,
    DATABASE_URL: pgUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: 'chaos',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    MIGRATE_ON_START: 'false',
    RATE_LIMIT_PER_SECOND: '100000',
    SANDBOX_SETTLEMENT_SECONDS: '1',
  };
  worker = await startWorker();
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    apis.push({ port, child: await startApi(port) });
  }
  db = createDb(pgUrl, 3);
});

afterAll(async () => {
  for (const a of apis) killTree(a.child);
  if (worker) killTree(worker);
  await db?.close().catch(() => undefined);
  await temporal?.stop();
  if (pg) await stopChild(pg);
  fs.rmSync(tmp, { recursive: true, force: true });
});

it('loses no acknowledged payment and no event through crashes and outages', async () => {
  const account = await createAccount(db.pool, 'Chaos merchant');
  const { secret: key } = await createApiKey(db.pool, { accountId: account.id, livemode: false });
  const receiver = await startReceiver();
  const apiUrl = (i: number) => `http://127.0.0.1:${apis[i % apis.length].port}`;
  const endpoint = await call(apiUrl(0), 'POST', '/v1/webhook-endpoints', { key, body: { url: receiver.url, enabled_events: ['*'] } });
  expect(endpoint.status).toBe(200);

  const acknowledged = new Set<string>();
  const statuses: Record<number, number> = {};
  const unavailable: string[] = [];
  let sent = 0;
  let loadRunning = true;

  /** One payer: create (retrying with the same Idempotency-Key on either API), then pay with 4242. */
  async function payer(n: number) {
    const idem = crypto.randomUUID();
    for (let attempt = 0; attempt < 4; attempt++) {
      const res = await call(apiUrl(n + attempt), 'POST', '/v1/payments', { key, body: { amount: 1000 + n, currency: 'EUR' }, headers: { 'Idempotency-Key': idem } }).catch(() => null);
      if (res) statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (res?.status === 503) unavailable.push(res.body?.error?.code);
      if (res && res.status === 200) {
        acknowledged.add(res.body.id);
        await call(apiUrl(n + 1), 'POST', `/v1/test-helpers/payments/${res.body.id}/checkout`, { key, body: { method: 'card', card_number: '4242424242424242' } }).catch(() => null);
        return;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  const inflight: Promise<void>[] = [];
  const load = (async () => {
    while (loadRunning) {
      inflight.push(payer(sent++));
      await new Promise((r) => setTimeout(r, 300)); // ~3 payers per second: a steady load a 2-core machine can drain
    }
  })();
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  await pause(5000);
  log('kill -9 worker');
  killTree(worker);
  await pause(4000);
  worker = await startWorker();
  log('worker restarted');

  await pause(3000);
  log('kill -9 API process 0');
  killTree(apis[0].child);
  await pause(3000);
  apis[0].child = await startApi(apis[0].port);
  log('API 0 restarted');

  await pause(3000);
  log('restart Temporal dev server (SQLite kept)');
  await temporal.stop();
  temporal = await startTemporalDevServer({ port: temporalPort, dbFile: path.join(tmp, 'temporal.sqlite') });
  log('Temporal restarted');

  await pause(4000);
  log('stop PostgreSQL for 10 s');
  await stopChild(pg);
  const outageEnd = Date.now() + 10_000;
  const probes: Array<{ status: number; code?: string }> = [];
  while (Date.now() < outageEnd) {
    const r = await call(apiUrl(1), 'GET', '/v1/payments?limit=1', { key }).catch((err: Error) => ({ status: -1, body: { error: { code: err.message } } }));
    probes.push({ status: r.status, code: r.body?.error?.code });
    await pause(500);
  }
  pg = await startPostgres();
  log('PostgreSQL restarted');
  expect(probes.length).toBeGreaterThan(0);
  expect(probes.filter((p) => !(p.status === 503 && p.code === 'service_unavailable'))).toEqual([]);
  // The API recovers by itself.
  await waitFor(async () => (await call(apiUrl(1), 'GET', '/v1/payments?limit=1', { key }).catch(() => null))?.status === 200, { timeoutMs: 30_000, what: 'API recovery' });

  await pause(4000);
  loadRunning = false;
  await load;
  await Promise.all(inflight);
  log(`load done: ${sent} payers, ${acknowledged.size} acknowledged, statuses ${JSON.stringify(statuses)}`);
  expect(statuses[500] ?? 0).toBe(0);
  expect(acknowledged.size).toBeGreaterThan(30);

  // Drain: payers whose checkout call was lost pay again; every acknowledged payment must end succeeded and paid out.
  const ids = [...acknowledged].map((id) => id.slice(4));
  await waitFor(
    async () => {
      const { rows } = await db.query(`SELECT id, status, payout_status FROM payments WHERE id = ANY ($1::uuid[])`, [ids]);
      const pending = rows.filter((r) => !(r.status === 'succeeded' && r.payout_status === 'paid'));
      await Promise.all(
        pending
          .filter((p) => p.status === 'requires_action')
          .slice(0, 25)
          .map((r, i) => call(apiUrl(i), 'POST', `/v1/test-helpers/payments/pmt_${r.id}/checkout`, { key, body: { method: 'card', card_number: '4242424242424242' } }).catch(() => null)),
      );
      log(`drain: ${pending.length} of ${ids.length} not yet paid out`);
      return rows.length === ids.length && pending.length === 0;
    },
    { timeoutMs: 420_000, intervalMs: 2000, what: 'every acknowledged payment to succeed and pay out' },
  );

  // Exactly-once transitions: one created/succeeded/payout.paid each; one requires_action and processing per attempt.
  const { rows: counts } = await db.query(
    `SELECT coalesce(data->'object'->>'payment', data->'object'->>'id') AS payment, type, count(*)::int AS n
       FROM events WHERE account_id = $1 GROUP BY 1, 2`,
    [account.id],
  );
  const byPayment = new Map<string, Record<string, number>>();
  for (const c of counts) byPayment.set(c.payment, { ...(byPayment.get(c.payment) ?? {}), [c.type]: c.n });
  for (const id of ids) {
    const t = byPayment.get(id) ?? {};
    const failed = t['payment.failed'] ?? 0;
    expect({ id, created: t['payment.created'], succeeded: t['payment.succeeded'], paid: t['payout.paid'], processing: t['payment.processing'], requiresAction: t['payment.requires_action'] }).toEqual({
      id,
      created: 1,
      succeeded: 1,
      paid: 1,
      processing: failed + 1,
      requiresAction: failed + 1,
    });
  }

  // At-least-once delivery of every event (the sweep runs every minute).
  const { rows: events } = await db.query('SELECT id FROM events WHERE account_id = $1', [account.id]);
  const expected = new Set(events.map((e) => `evt_${e.id}`));
  const missing = () => {
    const got = new Set(receiver.requests.map((r) => JSON.parse(r.body).id));
    return [...expected].filter((id) => !got.has(id));
  };
  await waitFor(() => missing().length === 0, { timeoutMs: 240_000, intervalMs: 2000, what: 'every event delivered' }).catch(async (err) => {
    // What the undelivered events look like, for the post-mortem.
    const ids = missing().map((id) => id.slice(4));
    const { rows } = await db.query(
      `SELECT e.id, e.type, e.created_at, e.dispatched_at, d.status, d.attempt_count, d.next_attempt_at, d.workflow_id
         FROM events e LEFT JOIN webhook_deliveries d ON d.event_id = e.id WHERE e.id = ANY ($1::uuid[]) ORDER BY e.id`,
      [ids],
    );
    log(`${ids.length} events undelivered:\n${rows.map((r) => JSON.stringify(r)).join('\n')}`);
    throw err;
  });
  log(`${expected.size} events, ${receiver.requests.length} deliveries received (duplicates allowed: at-least-once)`);
  await receiver.close();
});
