import crypto from 'node:crypto';
import { LEASE_MS, leaseSize, RateLimiter } from '../../src/http/middleware/rate-limit';
import { closeTestDb, testDb } from '../support/stack';

/** The per-process limiter against the real shared bucket in PostgreSQL. */
const bucketRow = async (key: string) =>
  (await testDb().query<{ tokens: number; granted: number }>('SELECT tokens, granted FROM rate_limit_buckets WHERE bucket_key = $1', [key])).rows[0];
const newBucket = () => `test-limiter:${crypto.randomUUID()}`;

afterAll(closeTestDb);

it('leases a fiftieth of a second of the limit at a time, one token under 100/s, at most 100', () => {
  expect(leaseSize(1)).toBe(1);
  expect(leaseSize(5)).toBe(1);
  expect(leaseSize(99)).toBe(1);
  expect(leaseSize(1000)).toBe(20);
  expect(leaseSize(1_000_000_000)).toBe(100);
});

it('serves a whole lease from one statement, then goes back to the bucket', async () => {
  const key = newBucket();
  const limiter = new RateLimiter(testDb().pool, 1000);
  for (let i = 0; i < 20; i++) expect((await limiter.take(key)).allowed).toBe(true);
  const afterOneLease = await bucketRow(key);
  expect(afterOneLease.granted).toBe(20);
  expect(afterOneLease.tokens).toBeCloseTo(980, 0);

  expect((await limiter.take(key)).allowed).toBe(true);
  const afterTwo = await bucketRow(key);
  // A second lease of 20 (plus whatever refilled in between, at most the cap of 1000).
  expect(afterTwo.granted).toBe(20);
  expect(afterTwo.tokens).toBeLessThan(afterOneLease.tokens + 5);
});

it('shares one refill among concurrent requests, and refuses them all when the bucket is empty', async () => {
  const key = newBucket();
  // Two "processes" on one bucket of 5/s: exact, one token per statement.
  const a = new RateLimiter(testDb().pool, 5);
  const b = new RateLimiter(testDb().pool, 5);
  const started = Date.now();
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).take(key)));
  const elapsed = (Date.now() - started) / 1000;
  const allowed = results.filter((r) => r.allowed).length;
  expect(allowed).toBeGreaterThanOrEqual(5);
  expect(allowed).toBeLessThanOrEqual(5 + Math.ceil(elapsed * 5));
  const refused = results.find((r) => !r.allowed)!;
  expect(refused.retryAfterSeconds).toBe(1);
  expect(refused.remaining).toBe(0);
});

it('lets unused leased tokens lapse after LEASE_MS instead of hoarding them', async () => {
  const key = newBucket();
  let now = Date.now();
  const limiter = new RateLimiter(testDb().pool, 1000, () => now);
  expect((await limiter.take(key)).allowed).toBe(true); // leases 20, uses 1
  expect((await bucketRow(key)).granted).toBe(20);
  await testDb().query('UPDATE rate_limit_buckets SET granted = 0 WHERE bucket_key = $1', [key]);
  expect((await limiter.take(key)).allowed).toBe(true); // from the lease: no statement
  expect((await bucketRow(key)).granted).toBe(0);
  now += LEASE_MS + 1;
  expect((await limiter.take(key)).allowed).toBe(true); // the lease lapsed: a new one
  expect((await bucketRow(key)).granted).toBe(20);
});

it('reports what is left in RateLimit-Remaining terms', async () => {
  const key = newBucket();
  const limiter = new RateLimiter(testDb().pool, 1000);
  const first = await limiter.take(key);
  expect(first.remaining).toBeGreaterThanOrEqual(990);
  expect(first.remaining).toBeLessThanOrEqual(999);
  expect(first.resetSeconds).toBe(1);
});
