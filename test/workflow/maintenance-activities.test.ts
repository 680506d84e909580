import type { PoolClient } from 'pg';
import { Client, Connection } from '@temporalio/client';
import { createWebhookActivities } from '../../activities/webhooks';
import type { Db } from '../../src/db/pool';
import { insertEvent } from '../../src/domain/events';
import { newUuid } from '../../src/ids';
import { createLogger } from '../../src/logger';
import { createEndpoint, ensureDelivery, recordAttempt } from '../../src/webhooks/repository';
import { closeTestDb, createMerchant, testConfig, testDb } from '../support/stack';

// The maintenance activities against the real test database, each test inside a transaction that
// is rolled back, so purging "everything older than 30 days" cannot touch other test files' rows.
let tx: PoolClient;
let connection: Connection;
let activities: ReturnType<typeof createWebhookActivities>;

beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
});
beforeEach(async () => {
  tx = await testDb().pool.connect();
  await tx.query('BEGIN');
  const db = { pool: tx, query: (sql: string, params?: unknown[]) => tx.query(sql, params as any[]) } as unknown as Db;
  activities = createWebhookActivities({ db, config: testConfig(), temporal: new Client({ connection }), logger: createLogger('silent'), clock: () => new Date() });
});
afterEach(async () => {
  await tx.query('ROLLBACK');
  tx.release();
});
afterAll(async () => {
  await connection?.close();
  await closeTestDb();
});

function shift(uuid: string, deltaMs: number): string {
  const hex = uuid.replace(/-/g, '');
  const h = (parseInt(hex.slice(0, 12), 16) + deltaMs).toString(16).padStart(12, '0') + hex.slice(12);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

it('purges events older than 30 days with their deliveries and attempts, and keeps the rest', async () => {
  const m = await createMerchant();
  const { endpoint } = await createEndpoint(tx, { accountId: m.accountId, livemode: false, url: 'http://127.0.0.1:9/x', enabledEvents: ['*'] });
  const make = async (ageDays: number) => {
    const e = await insertEvent(tx, { accountId: m.accountId, livemode: false, type: 'payment.created', object: {} });
    const id = shift(e.id, -ageDays * 86400_000);
    await tx.query("UPDATE events SET id = $2, created_at = created_at - make_interval(days => $3), dispatched_at = now() WHERE id = $1", [e.id, id, ageDays]);
    const d = await ensureDelivery(tx, { workflowId: `wf-${newUuid()}`, eventId: id, endpointId: endpoint.id, replay: false });
    await recordAttempt(tx, {
      delivery_id: d.id, attempt_number: 1, scheduled_at: new Date(), attempted_at: new Date(), request_url: 'http://127.0.0.1:9/x',
      request_headers: {}, request_body: '{}', response_status: 500, response_headers: {}, response_body: '', duration_ms: 3, error: null,
    });
    return { id, deliveryId: d.id };
  };
  const old = await make(31);
  const recent = await make(29);
  expect(await activities.purgeExpiredEvents()).toBeGreaterThanOrEqual(1);
  const count = async (sql: string, id: string) => (await tx.query(sql, [id])).rows[0].n;
  expect(await count('SELECT count(*)::int AS n FROM events WHERE id = $1', old.id)).toBe(0);
  expect(await count('SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = $1', old.deliveryId)).toBe(0);
  expect(await count('SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE delivery_id = $1', old.deliveryId)).toBe(0);
  expect(await count('SELECT count(*)::int AS n FROM events WHERE id = $1', recent.id)).toBe(1);
  expect(await count('SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE delivery_id = $1', recent.deliveryId)).toBe(1);
});

it('purges idempotency keys older than 24 h when that table exists, and is a no-op without it', async () => {
  const { rows } = await tx.query("SELECT to_regclass('idempotency_keys') IS NOT NULL AS present");
  if (!rows[0].present) {
    expect(await activities.purgeIdempotencyKeys()).toBeNull();
    // The shape the idempotency work adds (only created_at matters here).
    await tx.query('CREATE TABLE idempotency_keys (key text PRIMARY KEY, created_at timestamptz NOT NULL)');
    await tx.query("INSERT INTO idempotency_keys VALUES ('old', now() - interval '25 hours'), ('new', now() - interval '23 hours')");
    expect(await activities.purgeIdempotencyKeys()).toBe(1);
    expect((await tx.query('SELECT key FROM idempotency_keys')).rows).toEqual([{ key: 'new' }]);
  } else {
    // The real table exists (branch merged): the purge runs against it.
    expect(await activities.purgeIdempotencyKeys()).toEqual(expect.any(Number));
  }
});
