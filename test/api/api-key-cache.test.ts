import { ApiKeyCache } from '../../src/http/api-key-cache';
import { createAccount, createApiKey, hashSecret, markAccountVerified, revokeApiKey } from '../../src/domain/accounts';
import { createLogger } from '../../src/logger';
import { closeTestDb, testDb } from '../support/stack';
import { waitFor } from '../support/receiver';

/**
 * The API process caches authenticated keys; migration 008's triggers NOTIFY on any change to a key
 * or an account, and every cache drops its entries. These tests make the change through another
 * connection, as another API process or the worker would.
 */
const logger = createLogger('silent');
const caches: ApiKeyCache[] = [];

async function startedCache(): Promise<ApiKeyCache> {
  const cache = new ApiKeyCache({ databaseUrl: process.env.TEST_DATABASE_URL!, pool: testDb().pool, logger });
  caches.push(cache);
  await cache.start();
  return cache;
}

async function liveKey() {
  const account = await createAccount(testDb().pool, 'Key cache merchant');
  const key = await createApiKey(testDb().pool, { accountId: account.id, livemode: true });
  return { accountId: account.id, keyId: key.key.id, secret: key.secret };
}

afterAll(async () => {
  for (const c of caches) await c.close();
  await closeTestDb();
});

it('serves a cached key without the database, and forgets it when the key is revoked elsewhere', async () => {
  const cache = await startedCache();
  const { accountId, keyId, secret } = await liveKey();
  expect((await cache.lookup(secret))?.accountId).toBe(accountId);

  // Revoke with the triggers switched off for this one transaction: no notification is sent, so
  // the cache still answering proves that it answers without asking the database.
  await testDb().withTransaction(async (tx) => {
    await tx.query(`SET LOCAL session_replication_role = replica`);
    await tx.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [keyId]);
  });
  expect((await cache.lookup(secret))?.accountId).toBe(accountId);
  cache.invalidateAll();
  expect(await cache.lookup(secret)).toBeNull();

  // The normal path: a revocation elsewhere notifies, and the cache forgets the key.
  const other = await liveKey();
  expect(await cache.lookup(other.secret)).not.toBeNull();
  await revokeApiKey(testDb().pool, other.accountId, other.keyId);
  await waitFor(async () => (await cache.lookup(other.secret)) === null, { timeoutMs: 5000, what: 'the revoked key to be refused' });
});

it('sees a verification change made elsewhere', async () => {
  const cache = await startedCache();
  const { accountId, secret } = await liveKey();
  expect((await cache.lookup(secret))?.accountVerified).toBe(false);
  await markAccountVerified(testDb().pool, accountId);
  await waitFor(async () => (await cache.lookup(secret))?.accountVerified === true, { timeoutMs: 5000, what: 'the verification to show' });
});

it('is bypassed while it is not listening, so a missed notification cannot serve a revoked key', async () => {
  const notStarted = new ApiKeyCache({ databaseUrl: process.env.TEST_DATABASE_URL!, pool: testDb().pool, logger });
  const { accountId, keyId, secret } = await liveKey();
  expect(await notStarted.lookup(secret)).not.toBeNull();
  await revokeApiKey(testDb().pool, accountId, keyId);
  expect(await notStarted.lookup(secret)).toBeNull();
});

it('bypasses the cache after losing its LISTEN connection, and listens again once it is back', async () => {
  const cache = await startedCache();
  const first = await liveKey();
  expect(await cache.lookup(first.secret)).not.toBeNull();

  // Cut the listener's connection, as a database restart would.
  const { rows } = await testDb().query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN auth_changed'`);
  expect(rows.length).toBeGreaterThan(0);
  await testDb().query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1', ['LISTEN auth_changed']);
  await waitFor(() => !cache.isListening(), { timeoutMs: 5000, what: 'the cache to notice' });

  // Meanwhile every lookup goes to the database: a revocation applies at once.
  await revokeApiKey(testDb().pool, first.accountId, first.keyId);
  expect(await cache.lookup(first.secret)).toBeNull();

  // It reconnects by itself and caches again; a later revocation is still seen.
  await waitFor(() => cache.isListening(), { timeoutMs: 10_000, what: 'the listener to reconnect' });
  const second = await liveKey();
  expect(await cache.lookup(second.secret)).not.toBeNull();
  await revokeApiKey(testDb().pool, second.accountId, second.keyId);
  await waitFor(async () => (await cache.lookup(second.secret)) === null, { timeoutMs: 5000, what: 'the revoked key to be refused' });
});

it('caches only keys that exist, by hash', async () => {
  const cache = await startedCache();
  expect(await cache.lookup('sk_test_' + 'x'.repeat(40))).toBeNull();
  expect(hashSecret('sk_test_' + 'x'.repeat(40))).toMatch(/^[0-9a-f]{64}$/);
});
