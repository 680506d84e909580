import fs from 'node:fs';
import type { RunningApi } from '../../src/api';
import { OPENAPI_FILE, renderOpenApi } from '../../src/http/write-openapi';
import { call, closeTestDb, createMerchant, startTestApi, type TestMerchant } from '../support/stack';

let api: RunningApi;
let merchant: TestMerchant;

beforeAll(async () => {
  api = await startTestApi();
  merchant = await createMerchant();
});
afterAll(async () => {
  await api.close();
  await closeTestDb();
});

function expectError(res: { status: number; headers: Headers; body: any }, status: number, type: string, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ ok: false, error: { type, code } });
  expect(res.body.error.request_id).toBe(res.headers.get('request-id'));
  expect(res.body.error.message).toEqual(expect.any(String));
}

describe('health', () => {
  it('is 200 when PostgreSQL and Temporal answer', async () => {
    const res = await call(api.url, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, database: 'ok', temporal: 'ok' });
  });

  it('is 503 when Temporal is unreachable', async () => {
    const broken = await startTestApi({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
    try {
      const res = await call(broken.url, 'GET', '/healthz');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ ok: false, database: 'ok', temporal: 'unreachable' });
    } finally {
      await broken.close();
    }
  });
});

describe('authentication', () => {
  it('accepts a sandbox key and returns its account', async () => {
    const res = await call(api.url, 'GET', '/v1/account', { key: merchant.testKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: merchant.publicAccountId, object: 'account', live_enabled: false });
    expect(res.headers.get('request-id')).toMatch(/^req_/);
  });

  it.each([
    ['missing', undefined],
    ['malformed', 'Token abc'],
    ['unknown', 'Bearer sk_test_' + 'x'.repeat(32)],
  ])('rejects a %s key with 401', async (_label, header) => {
    const res = await call(api.url, 'GET', '/v1/account', { headers: header ? { Authorization: header } : {} });
    expectError(res, 401, 'authentication_error', 'invalid_api_key');
  });

  it('refuses live keys until the account is verified, then accepts them', async () => {
    const res = await call(api.url, 'GET', '/v1/account', { key: merchant.liveKey });
    expectError(res, 403, 'permission_error', 'account_not_verified');
    const verified = await createMerchant({ verified: true });
    const ok = await call(api.url, 'GET', '/v1/account', { key: verified.liveKey });
    expect(ok.status).toBe(200);
    expect(ok.body.live_enabled).toBe(true);
  });
});

describe('versioning', () => {
  it('echoes the pinned version when none is sent', async () => {
    const res = await call(api.url, 'GET', '/v1/account', { key: merchant.testKey });
    expect(res.headers.get('service-version')).toBe('2026-11-01');
  });
  it('rejects an unknown version', async () => {
    const res = await call(api.url, 'GET', '/v1/account', { key: merchant.testKey, headers: { 'Service-Version': '1999-01-01' } });
    expectError(res, 400, 'invalid_request_error', 'version_invalid');
  });
});

describe('request bodies', () => {
  it('answers 415 to a non-JSON content type', async () => {
    const res = await call(api.url, 'POST', '/v1/account', { key: merchant.testKey, rawBody: 'a=1', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expectError(res, 415, 'invalid_request_error', 'unsupported_media_type');
  });
  it('answers 413 over 1 MB', async () => {
    const res = await call(api.url, 'POST', '/v1/account', { key: merchant.testKey, body: { blob: 'x'.repeat(1_100_000) } });
    expectError(res, 413, 'invalid_request_error', 'body_too_large');
  });
  it('answers 400 invalid_json to broken JSON', async () => {
    const res = await call(api.url, 'POST', '/v1/account', { key: merchant.testKey, rawBody: '{"amount":', headers: { 'Content-Type': 'application/json' } });
    expectError(res, 400, 'invalid_request_error', 'invalid_json');
  });
  it('answers unknown routes with the error body', async () => {
    const res = await call(api.url, 'GET', '/v1/nothing-here', { key: merchant.testKey });
    expectError(res, 404, 'invalid_request_error', 'resource_missing');
  });
});

describe('rate limit', () => {
  it('sends RateLimit headers on every authenticated response', async () => {
    const res = await call(api.url, 'GET', '/v1/account', { key: merchant.testKey });
    expect(res.headers.get('ratelimit-limit')).toBe('1000');
    expect(Number(res.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
  });

  it('answers 429 with Retry-After over the limit, shared across API processes', async () => {
    const other = await createMerchant();
    const a = await startTestApi({ RATE_LIMIT_PER_SECOND: '5' });
    const b = await startTestApi({ RATE_LIMIT_PER_SECOND: '5' });
    try {
      const started = Date.now();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => call(i % 2 ? a.url : b.url, 'GET', '/v1/account', { key: other.testKey })),
      );
      const elapsedSeconds = (Date.now() - started) / 1000;
      const limited = results.filter((r) => r.status === 429);
      // A full bucket of 5, plus what refilled while the burst was in flight.
      expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(5 + Math.ceil(elapsedSeconds * 5));
      expect(limited.length).toBeGreaterThanOrEqual(1);
      expectError(limited[0], 429, 'rate_limit_error', 'rate_limited');
      expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('base path', () => {
  it('serves the API under a path prefix', async () => {
    const prefixed = await startTestApi({ PUBLIC_BASE_URL: 'https://pay.example.com/api' });
    try {
      const base = `http://127.0.0.1:${(prefixed.server.address() as { port: number }).port}`;
      expect((await call(`${base}/api`, 'GET', '/v1/account', { key: merchant.testKey })).status).toBe(200);
      expect((await call(`${base}/api`, 'GET', '/healthz')).status).toBe(200);
      expect((await call(base, 'GET', '/v1/account', { key: merchant.testKey })).status).toBe(404);
      const doc = await call(`${base}/api`, 'GET', '/v1/openapi.json');
      expect(doc.body.servers[0].url).toBe('https://pay.example.com/api');
    } finally {
      await prefixed.close();
    }
  });
});

describe('OpenAPI', () => {
  it('serves an OpenAPI 3.1 document', async () => {
    const res = await call(api.url, 'GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/v1/account'].get.operationId).toBe('getAccount');
  });
  it('matches the committed openapi.json (run `npm run openapi:write` after changing a schema)', () => {
    expect(fs.readFileSync(OPENAPI_FILE, 'utf8')).toBe(renderOpenApi());
  });
});
