import fc from 'fast-check';
import type { RunningApi } from '../../src/api';
import { buildOpenApiDocument } from '../../src/http/openapi';
import { call, closeTestDb, createMerchant, startTestApi, testDb, type TestMerchant } from '../support/stack';

/**
 * Property-based: thousands of generated bodies, headers, query strings and path ids thrown at
 * every operation of the OpenAPI document and at the hosted pages. None may get a 5xx, every 4xx
 * carries the error body, and a rejected request writes nothing.
 */
let api: RunningApi;
let merchant: TestMerchant;
let realIds: string[];

beforeAll(async () => {
  api = await startTestApi({ RATE_LIMIT_PER_SECOND: '100000' });
  merchant = await createMerchant();
  const payment = await call(api.url, 'POST', '/v1/payments', { key: merchant.testKey, body: { amount: 100, currency: 'EUR' } });
  const link = await call(api.url, 'POST', '/v1/payment-links', { key: merchant.testKey, body: { title: 'T', amount: 100, currency: 'EUR' } });
  realIds = [payment.body.id, link.body.id, `evt_${payment.body.id.slice(4)}`, 'we_00000000-0000-7000-8000-000000000000'];
});
afterAll(async () => {
  await api.close();
  await closeTestDb();
});

const operations = Object.entries(buildOpenApiDocument().paths ?? {}).flatMap(([path, item]) =>
  Object.keys(item as object)
    .filter((m) => ['get', 'post', 'patch', 'delete'].includes(m))
    .map((method) => ({ method: method.toUpperCase(), path })),
);
const pages = [
  { method: 'GET', path: '/checkout/{id}' },
  { method: 'POST', path: '/checkout/{id}/card' },
  { method: 'POST', path: '/checkout/{id}/challenge' },
  { method: 'POST', path: '/checkout/{id}/wallet' },
  { method: 'POST', path: '/checkout/{id}/transfer' },
  { method: 'GET', path: '/links/{id}' },
];

const FIELDS = ['amount', 'currency', 'payout', 'methods', 'metadata', 'title', 'url', 'enabled_events', 'description', 'disabled', 'method', 'card_number', 'challenge', 'endpoint_id', 'type', 'currency'];
const anyValue = fc.oneof(fc.jsonValue(), fc.integer(), fc.double(), fc.string({ unit: 'binary' }), fc.constantFrom('EUR', 'USDC', 'card', '*', -1, 0, 99_999_999, 1e308, '4242424242424242'));
const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), anyValue).map((o) => JSON.stringify(o)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', '{', '{"amount":', 'null', '[]', '"x"', '{"__proto__":{"x":1}}', '{"amount":1e999,"currency":"EUR"}'),
);
const pathId = fc.oneof(fc.constantFrom(...(['pmt_', 'evt_', 'we_', 'plink_', 'pmt_not-a-uuid', '%00', '..', 'x'.repeat(300)] as string[])), fc.string({ unit: 'binary', maxLength: 60 }), fc.uuid().map((u) => `pmt_${u}`));
const headers = fc.record(
  {
    'Content-Type': fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', ''),
    'Idempotency-Key': fc.oneof(fc.string({ minLength: 0, maxLength: 300 }), fc.uuid()),
    'Service-Version': fc.constantFrom('2026-11-01', '2020-01-01', 'latest', ''),
  },
  { requiredKeys: [] },
);
const query = fc.dictionary(fc.constantFrom('limit', 'cursor', 'type', 'created_after', 'created_before', 'status', 'active', 'x'), fc.oneof(fc.string(), fc.integer().map(String)), { maxKeys: 3 });

async function businessRows(): Promise<number> {
  const { rows } = await testDb().query(
    `SELECT (SELECT count(*) FROM payments WHERE account_id = $1) + (SELECT count(*) FROM payment_links WHERE account_id = $1)
          + (SELECT count(*) FROM webhook_endpoints WHERE account_id = $1) AS n`,
    [merchant.accountId],
  );
  return Number(rows[0].n);
}

function headerSafe(h: Record<string, string>): Record<string, string> {
  // fetch refuses header values with control characters or non-Latin-1 text before sending; keep what HTTP can carry.
  return Object.fromEntries(Object.entries(h).filter(([, v]) => /^[\x20-\x7e]*$/.test(v)));
}

it('never answers 5xx, always answers 4xx with the error body, and writes nothing when it rejects', async () => {
  const targets = [...operations, ...pages];
  const seen = new Set<number>();
  expect(operations.length).toBeGreaterThanOrEqual(15);
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...targets), fc.oneof(fc.constantFrom(...realIds), pathId), body, headers, query, fc.boolean(), async (op, id, rawBody, hdrs, q, authenticated) => {
      const path = op.path.replace('{id}', encodeURIComponent(id));
      const qs = new URLSearchParams(q).toString();
      const before = await businessRows();
      const res = await call(api.url, op.method, `${path}${qs ? `?${qs}` : ''}`, {
        key: authenticated ? merchant.testKey : undefined,
        headers: headerSafe(hdrs),
        rawBody: op.method === 'GET' ? undefined : rawBody,
      });
      seen.add(res.status);
      if (res.status >= 500) throw new Error(`${op.method} ${path} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
      const isPage = path.startsWith('/checkout') || path.startsWith('/links');
      if (res.status >= 400 && !isPage) {
        expect(res.body).toMatchObject({ ok: false, error: { type: expect.any(String), code: expect.any(String), message: expect.any(String), request_id: expect.stringMatching(/^req_/) } });
        expect(await businessRows()).toBe(before);
      }
    }),
    { numRuns: 1500, seed: Number(process.env.FUZZ_SEED ?? 20261122) },
  );
  // The inputs reached every layer: accepted requests, validation, auth, lookups and media-type checks.
  for (const status of [200, 400, 401, 404, 415]) expect(seen).toContain(status);
});
