import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { RunningApi } from '../../src/api';
import { advisoryLockKey } from '../../src/http/idempotency';
import { call, closeTestDb, createMerchant, startTestApi, testDb, type TestMerchant } from '../support/stack';
import { ensureWidgetTable, widgetRoutes } from '../support/widgets';

/**
 * Idempotency-Key (decisions §7) against real PostgreSQL and real API processes, through the
 * test-only widget routes (test/support/widgets.ts).
 */

let a: RunningApi;
let b: RunningApi;
let merchant: TestMerchant;
let keySeq = 0;

beforeAll(async () => {
  await ensureWidgetTable(testDb().pool);
  [a, b] = await Promise.all([startTestApi({}, { extraRoutes: widgetRoutes }), startTestApi({}, { extraRoutes: widgetRoutes })]);
  merchant = await createMerchant({ verified: true });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await closeTestDb();
});

/** A key no other test uses. */
function newKey(label: string): string {
  return `${label}-${process.pid}-${Date.now()}-${++keySeq}`;
}

function post(url: string, key: string | undefined, idemKey: string | undefined, body: unknown, path = '/v1/test-widgets', rawBody?: string) {
  return call(url, 'POST', path, {
    key,
    body: rawBody === undefined ? body : undefined,
    rawBody,
    headers: { ...(idemKey !== undefined ? { 'Idempotency-Key': idemKey } : {}), ...(rawBody !== undefined ? { 'Content-Type': 'application/json' } : {}) },
  });
}

async function widgets(accountId: string, name: string): Promise<Array<{ id: string; livemode: boolean; hooks_run: number }>> {
  const { rows } = await testDb().query('SELECT id, livemode, hooks_run FROM test_widgets WHERE account_id = $1 AND name = $2 ORDER BY created_at', [accountId, name]);
  return rows;
}

async function storedKeys(accountId: string, key: string): Promise<number> {
  const { rows } = await testDb().query('SELECT count(*)::int AS n FROM idempotency_keys WHERE account_id = $1 AND key = $2', [accountId, key]);
  return rows[0].n;
}

/** Polls until fn returns a truthy value. */
async function until<T>(fn: () => Promise<T>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('Idempotency-Key', () => {
  it('replays the first response, byte for byte, with Idempotent-Replayed: true and no second side effect', async () => {
    const key = newKey('basic');
    const first = await post(a.url, merchant.testKey, key, { name: key });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(first.body).toMatchObject({ object: 'test_widget', name: key, livemode: false });

    const again = await post(b.url, merchant.testKey, key, { name: key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body)); // same keys in the same order
    expect(again.headers.get('request-id')).not.toBe(first.headers.get('request-id'));

    const rows = await widgets(merchant.accountId, key);
    expect(rows).toHaveLength(1);
    expect(rows[0].hooks_run).toBe(1); // the replay ran no afterCommit work
  });

  it('without a key, every request acts', async () => {
    const name = newKey('nokey');
    expect((await post(a.url, merchant.testKey, undefined, { name })).status).toBe(200);
    expect((await post(a.url, merchant.testKey, undefined, { name })).status).toBe(200);
    expect(await widgets(merchant.accountId, name)).toHaveLength(2);
  });

  it('refuses a key that is empty or longer than 255 characters, naming the header', async () => {
    for (const bad of ['', 'k'.repeat(256)]) {
      const res = await post(a.url, merchant.testKey, bad, { name: 'bad-key' });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'Idempotency-Key' });
    }
    const longest = 'k'.repeat(255 - 12) + newKey('').slice(-12);
    const ok = await post(a.url, merchant.testKey, longest, { name: 'longest-key' });
    expect(ok.status).toBe(200);
  });

  describe('mismatch detection', () => {
    it('answers 422 to the same key with a different body, and replays a body whose keys come in another order', async () => {
      const key = newKey('mismatch');
      const first = await post(a.url, merchant.testKey, key, undefined, '/v1/test-widgets', `{"name":"${key}","tags":{"a":1,"b":[1,{"x":1,"y":2}]}}`);
      expect(first.status).toBe(200);

      const reordered = await post(b.url, merchant.testKey, key, undefined, '/v1/test-widgets', `{"tags":{"b":[1,{"y":2,"x":1}],"a":1},"name":"${key}"}`);
      expect(reordered.status).toBe(200);
      expect(reordered.headers.get('idempotent-replayed')).toBe('true');
      expect(reordered.body).toEqual(first.body);

      // Values are not normalised: "1" is not 1, and array order matters.
      for (const raw of [
        `{"name":"${key}","tags":{"a":"1","b":[1,{"x":1,"y":2}]}}`,
        `{"name":"${key}","tags":{"a":1,"b":[{"x":1,"y":2},1]}}`,
        `{"name":"${key}-other","tags":{"a":1,"b":[1,{"x":1,"y":2}]}}`,
      ]) {
        const res = await post(a.url, merchant.testKey, key, undefined, '/v1/test-widgets', raw);
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
        expect(res.headers.get('idempotent-replayed')).toBeNull();
      }
      expect(await widgets(merchant.accountId, key)).toHaveLength(1);
    });

    it('answers 422 to the same key and body on another path', async () => {
      const key = newKey('path');
      expect((await post(a.url, merchant.testKey, key, { name: key }, '/v1/test-widgets')).status).toBe(200);
      const other = await post(a.url, merchant.testKey, key, { name: key }, '/v1/test-gadgets');
      expect(other.status).toBe(422);
      expect(other.body.error.code).toBe('idempotency_key_reused');
      expect(await widgets(merchant.accountId, key)).toHaveLength(1);
    });
  });

  it('stores nothing for requests refused before the handler (401, 400)', async () => {
    const key = newKey('rejected');
    const unauthorised = await post(a.url, 'sk_test_' + 'x'.repeat(32), key, { name: key });
    expect(unauthorised.status).toBe(401);
    const invalid = await post(a.url, merchant.testKey, key, { name: key, colour: 'red' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('parameter_unknown');
    const missing = await post(a.url, merchant.testKey, key, {});
    expect(missing.status).toBe(400);
    expect(await storedKeys(merchant.accountId, key)).toBe(0);

    const ok = await post(a.url, merchant.testKey, key, { name: key });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
    expect(await storedKeys(merchant.accountId, key)).toBe(1);
  });

  it('stores a client error the handler returns and replays it with the original request id; the handler wrote nothing', async () => {
    const key = newKey('notfound');
    const first = await post(a.url, merchant.testKey, key, { name: key, fail: 'not_found' });
    expect(first.status).toBe(404);
    expect(first.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing', request_id: first.headers.get('request-id') });

    const again = await post(b.url, merchant.testKey, key, { name: key, fail: 'not_found' });
    expect(again.status).toBe(404);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('request-id')).not.toBe(first.headers.get('request-id'));
    // The handler inserted a row before throwing: rolled back (savepoint), as it would be without a key.
    expect(await widgets(merchant.accountId, key)).toHaveLength(0);
  });

  it('stores nothing for an internal failure, so a retry runs again', async () => {
    const key = newKey('crash');
    const first = await post(a.url, merchant.testKey, key, { name: key, fail: 'crash' });
    expect(first.status).toBe(500);
    expect(await storedKeys(merchant.accountId, key)).toBe(0);
    const again = await post(a.url, merchant.testKey, key, { name: key, fail: 'crash' });
    expect(again.status).toBe(500);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.error.request_id).toBe(again.headers.get('request-id'));
    expect(await widgets(merchant.accountId, key)).toHaveLength(0);
  });

  it('scopes keys by account and mode', async () => {
    const key = newKey('scoped');
    const other = await createMerchant();
    const results = [
      await post(a.url, merchant.testKey, key, { name: key }),
      await post(a.url, merchant.liveKey, key, { name: key }),
      await post(a.url, other.testKey, key, { name: key }),
    ];
    for (const res of results) {
      expect(res.status).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(new Set(results.map((r) => r.body.id)).size).toBe(3);
    expect((await widgets(merchant.accountId, key)).map((w) => w.livemode).sort()).toEqual([false, true]);
    expect(await widgets(other.accountId, key)).toHaveLength(1);
    // And each replays its own response.
    const replay = await post(b.url, merchant.liveKey, key, { name: key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(results[1].body);
  });

  it('forgets a key after 24 h: the same key then runs as a new request', async () => {
    const key = newKey('expired');
    const first = await post(a.url, merchant.testKey, key, { name: key });
    await testDb().query(`UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 second' WHERE account_id = $1 AND key = $2`, [
      merchant.accountId,
      key,
    ]);
    const later = await post(a.url, merchant.testKey, key, { name: key, tags: { second: true } });
    expect(later.status).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
    const replay = await post(b.url, merchant.testKey, key, { name: key, tags: { second: true } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(later.body);
    expect(await widgets(merchant.accountId, key)).toHaveLength(2);
  });

  it('answers 409 idempotency_key_in_use while the first request is running, then replays', async () => {
    const key = newKey('inflight');
    const firstPromise = post(a.url, merchant.testKey, key, { name: key, delay_ms: 1500 });
    await until(() => lockHeld(merchant.accountId, false, key), 10_000, 'the first request to claim the key');
    const during = await post(b.url, merchant.testKey, key, { name: key, delay_ms: 1500 });
    expect(during.status).toBe(409);
    expect(during.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_in_use' });
    // Even a different body: the key is busy, whatever the request.
    expect((await post(b.url, merchant.testKey, key, { name: 'something else' })).status).toBe(409);
    const first = await firstPromise;
    expect(first.status).toBe(200);
    const after = await post(b.url, merchant.testKey, key, { name: key, delay_ms: 1500 });
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(after.body).toEqual(first.body);
  });

  // 300 ms: everyone arrives while the first runs (409s); 0 ms: later arrivals find it committed (replays).
  it.each([300, 0])('creates exactly one row for 50 concurrent requests with one key across two API processes (handler %i ms)', async (delayMs) => {
    const key = newKey('race');
    const body = { name: key, delay_ms: delayMs };
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => post(i % 2 ? a.url : b.url, merchant.testKey, key, body)));
    const elapsed = Date.now() - started;

    const originals = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    const replays = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === 'true');
    const inUse = results.filter((r) => r.status === 409);
    expect(originals).toHaveLength(1);
    expect(originals.length + replays.length + inUse.length).toBe(50);
    for (const r of replays) expect(r.body).toEqual(originals[0].body);
    for (const r of inUse) expect(r.body.error.code).toBe('idempotency_key_in_use');

    const rows = await widgets(merchant.accountId, key);
    expect(rows).toHaveLength(1);
    expect(`wdg_${rows[0].id}`).toBe(originals[0].body.id);

    const retry = await post(a.url, merchant.testKey, key, body);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(originals[0].body);
    console.log(`50-request race, handler ${delayMs} ms: ${elapsed} ms; 1 original, ${replays.length} replayed, ${inUse.length} × 409`);
  });

  describe('an API process killed mid-request', () => {
    let child: ChildProcess | undefined;
    afterEach(() => {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });

    it('leaves the key free: a retry on another process runs the request once', async () => {
      const root = path.resolve(__dirname, '..', '..');
      // node --import tsx (not the tsx launcher, which would leave its node child running after a SIGKILL).
      child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test', 'support', 'widget-api-process.ts')], {
        cwd: root,
        env: process.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
      let output = '';
      const childUrl = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`widget API did not start within 90 s:\n${output}`)), 90_000);
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          const match = /listening (\S+)/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        };
        child!.stdout!.on('data', onData);
        child!.stderr!.on('data', onData);
        child!.once('exit', (code) => reject(new Error(`widget API exited with ${code}:\n${output}`)));
      });

      const key = newKey('killed');
      const body = { name: key, delay_ms: 60_000 };
      const doomed = post(childUrl, merchant.testKey, key, body).catch((err: Error) => err);
      await until(() => lockHeld(merchant.accountId, false, key), 20_000, 'the child to claim the key');
      // The claim is visible to every process…
      expect((await post(a.url, merchant.testKey, key, body)).status).toBe(409);
      // …while the handler's write is not (uncommitted).
      expect(await widgets(merchant.accountId, key)).toHaveLength(0);

      const killedAt = Date.now();
      child.kill('SIGKILL');
      await exited;
      expect(await doomed).toMatchObject({ message: 'fetch failed' }); // the client saw the connection drop

      // PostgreSQL sees the closed connection, rolls back and drops the lock: the retry runs (not 409 forever).
      const retryBody = { name: key, delay_ms: 0 };
      let retry = await post(b.url, merchant.testKey, key, retryBody);
      while (retry.status === 409 && Date.now() - killedAt < 10_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        retry = await post(b.url, merchant.testKey, key, retryBody);
      }
      const recoveredMs = Date.now() - killedAt;
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(await widgets(merchant.accountId, key)).toHaveLength(1);
      expect((await post(a.url, merchant.testKey, key, retryBody)).headers.get('idempotent-replayed')).toBe('true');
      console.log(`killed API: key free again ${recoveredMs} ms after SIGKILL`);
    });
  });
});

/** Whether some session holds the advisory lock of (account, mode, key) right now. */
async function lockHeld(accountId: string, livemode: boolean, key: string): Promise<boolean> {
  const k = BigInt.asUintN(64, advisoryLockKey({ accountId, livemode, key }));
  const { rows } = await testDb().query(
    `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND classid = $1::bigint::oid AND objid = $2::bigint::oid`,
    [(k >> 32n).toString(), (k & 0xffffffffn).toString()],
  );
  return rows[0].n > 0;
}
