import { createAccount } from '../../src/domain/accounts';
import { EVENT_TYPES } from '../../src/domain/events';
import { eventListQuery, type EventListFilter } from '../../src/domain/events-query';
import type { PoolClient } from 'pg';
import { closeTestDb, testDb } from '../support/stack';

const ROWS = 1_000_000;
let accountId: string;
let smallAccountId: string;
let nowSeconds: number;
const timings: Record<string, number> = {};
// Everything happens in one transaction that is rolled back at the end: the million rows (and the
// statistics ANALYZE gathers on them) never reach the other test files sharing this database.
let tx: PoolClient;

beforeAll(async () => {
  tx = await testDb().pool.connect();
  await tx.query('BEGIN');
  const db = tx;
  accountId = (await createAccount(db, 'EXPLAIN merchant')).id;
  smallAccountId = (await createAccount(db, 'EXPLAIN small merchant')).id;
  nowSeconds = Math.floor(Date.now() / 1000);
  const started = Date.now();
  // One INSERT … SELECT: time-ordered UUIDv7-shaped ids, one event every 2 s going back ~23 days
  // (inside the 30-day retention, so the maintenance purge leaves them), already dispatched (so
  // the sweep ignores them), both modes and all 8 types. One in 500 belongs to a small account: the
  // usual case of a merchant whose events are a sliver of a big multi-tenant table.
  await db.query(
    `INSERT INTO events (id, account_id, livemode, type, data, created_at, dispatched_at)
     SELECT (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(h, 14, 3) || '-8' || substr(h, 18, 3) || '-' || substr(h, 21, 12))::uuid,
            CASE WHEN g % 500 = 0 THEN $5::uuid ELSE $1::uuid END, g % 7 <> 0, ($2::text[])[1 + (g + g / 500) % 8], '{"object":{}}'::jsonb, to_timestamp(ms / 1000.0), now()
     FROM (SELECT g, ms, lpad(to_hex(ms), 12, '0') || lpad(to_hex(g), 20, '0') AS h
           FROM (SELECT g, ($3::bigint - 3600 - g * 2) * 1000 AS ms FROM generate_series(1, $4::int) g) t) s`,
    [accountId, EVENT_TYPES, nowSeconds, ROWS, smallAccountId],
  );
  timings.insertMs = Date.now() - started;
  await db.query('ANALYZE events');
}, 300_000);
afterAll(async () => {
  console.log(`events EXPLAIN: ${ROWS} rows; timings (ms): ${JSON.stringify(timings, null, 1)}`);
  await tx?.query('ROLLBACK');
  tx?.release();
  await closeTestDb();
});

const combos: Array<{ type: boolean; after: boolean; before: boolean; cursor: boolean }> = [];
for (let i = 0; i < 16; i++) combos.push({ type: !!(i & 1), after: !!(i & 2), before: !!(i & 4), cursor: !!(i & 8) });

it('has at least a million events in the table', async () => {
  const { rows } = await tx.query('SELECT count(*)::int AS n FROM events WHERE account_id = ANY ($1)', [[accountId, smallAccountId]]);
  expect(rows[0].n).toBe(ROWS);
});

async function explain(account: string, c: (typeof combos)[number]) {
  const { rows: [mid] } = await tx.query(
    'SELECT id FROM events WHERE account_id = $1 AND livemode ORDER BY id DESC OFFSET (SELECT count(*) / 3 FROM events WHERE account_id = $1 AND livemode) LIMIT 1',
    [account],
  );
  const filter: EventListFilter = {
    accountId: account,
    livemode: true,
    limit: 20,
    ...(c.type ? { type: 'payment.succeeded' as const } : {}),
    ...(c.after ? { createdAfter: nowSeconds - 20 * 86400 } : {}),
    ...(c.before ? { createdBefore: nowSeconds - 5 * 86400 } : {}),
    ...(c.cursor ? { cursor: mid.id } : {}),
  };
  const { sql, params } = eventListQuery(filter);
  const { rows } = await tx.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
  const plan = rows[0]['QUERY PLAN'][0];
  const text = JSON.stringify(plan);
  // The index delivers rows in order: no Seq Scan, and no Sort either.
  expect(text).not.toMatch(/Seq Scan/);
  expect(text).not.toMatch(/"Node Type":"Sort"/);
  expect(text).toMatch(/"Node Type":"Index (Only )?Scan"/);
  expect(plan['Execution Time']).toBeLessThan(500);
  return { index: /"Index Name":"(\w+)"/.exec(text)![1], ms: plan['Execution Time'] as number, rows: plan.Plan['Actual Rows'] as number };
}

const label = (c: (typeof combos)[number]) => Object.entries(c).filter(([, v]) => v).map(([k]) => k).join('+') || 'no filter';

it.each(combos.map((c) => [label(c), c] as const))('serves %s by the list indexes for a merchant in a 1M-event table', async (name, c) => {
  const r = await explain(smallAccountId, c);
  expect(r.index).toBe(c.type ? 'events_type_idx' : 'events_list_idx');
  expect(r.rows).toBeGreaterThan(0);
  timings[`small ${name}`] = r.ms;
});

it.each(combos.map((c) => [label(c), c] as const))('serves %s by an index scan for the merchant that owns ~all of 1M events', async (name, c) => {
  // Not the primary key walked backwards with a filter: that skips every newer event of every
  // other merchant, which is slow exactly when another merchant is busy.
  const r = await explain(accountId, c);
  expect(r.index).toBe(c.type ? 'events_type_idx' : 'events_list_idx');
  expect(r.rows).toBe(21);
  timings[`big ${name} (${r.index})`] = r.ms;
});
