import type { RunningApi } from '../../src/api';
import { createPaymentActivities } from '../../activities/payments';
import { insertPayment } from '../../src/domain/payments';
import { paymentWorkflowId } from '../../src/temporal/contract';
import { verifyServiceSignature } from '../../src/webhooks/signature';
import { startReceiver, waitFor } from '../support/receiver';
import { call, closeTestDb, createMerchant, startTestApi, testDb, type TestMerchant } from '../support/stack';

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

const create = (key: string, body: unknown) => call(api.url, 'POST', '/v1/payments', { key, body });

async function eventTypes(paymentId: string): Promise<string[]> {
  const { rows } = await testDb().query(`SELECT type FROM events WHERE data->'object'->>'id' = $1 OR data->'object'->>'payment' = $1 ORDER BY id`, [paymentId.replace('pmt_', '')]);
  return rows.map((r) => r.type);
}

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('POST /v1/payments', () => {
  it('creates a payment in requires_action with an absolute checkout_url', async () => {
    const res = await create(merchant.testKey, { amount: 2000, currency: 'EUR', payout: { type: 'bank', currency: 'EUR' }, methods: ['card', 'sepa'], metadata: { order: '42' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'payment',
      status: 'requires_action',
      amount: 2000,
      currency: 'EUR',
      livemode: false,
      methods: ['card', 'sepa'],
      payout: { type: 'bank', currency: 'EUR' },
      metadata: { order: '42' },
      payment_method: null,
      payout_status: null,
    });
    expect(res.body.id).toMatch(/^pmt_[0-9a-f-]{36}$/);
    expect(res.body.checkout_url).toBe(`${api.url}/checkout/${res.body.id}`);
    expect(res.body.expires_at - res.body.created).toBe(24 * 3600);
    expect(await eventTypes(res.body.id)).toEqual(['payment.created', 'payment.requires_action']);
    const started = await eventually(
      () => testDb().query('SELECT workflow_started_at FROM payments WHERE id = $1', [res.body.id.slice(4)]),
      (r) => r.rows[0].workflow_started_at !== null,
    );
    expect(started.rows[0].workflow_started_at).not.toBeNull();
  });

  it('applies defaults: bank payout in the payment currency, all methods', async () => {
    const res = await create(merchant.testKey, { amount: 500, currency: 'JPY' });
    expect(res.body.payout).toEqual({ type: 'bank', currency: 'JPY' });
    expect(res.body.methods).toEqual(['card', 'apple_pay', 'google_pay', 'usdc', 'sepa']);
  });

  it.each([
    [{ currency: 'EUR' }, 'parameter_missing', 'amount'],
    [{ amount: 0, currency: 'EUR' }, 'parameter_invalid', 'amount'],
    [{ amount: 100_000_000, currency: 'EUR' }, 'parameter_invalid', 'amount'],
    [{ amount: 12.5, currency: 'EUR' }, 'parameter_invalid', 'amount'],
    [{ amount: '100', currency: 'EUR' }, 'parameter_invalid', 'amount'],
    [{ amount: 100, currency: 'eur' }, 'parameter_invalid', 'currency'],
    [{ amount: 100, currency: 'XYZ' }, 'parameter_invalid', 'currency'],
    [{ amount: 100 }, 'parameter_missing', 'currency'],
    [{ amount: 100, currency: 'EUR', methods: ['cash'] }, 'parameter_invalid', 'methods[0]'],
    [{ amount: 100, currency: 'EUR', methods: [] }, 'parameter_invalid', 'methods'],
    [{ amount: 100, currency: 'EUR', payout: { type: 'iban', currency: 'EUR' } }, 'parameter_invalid', 'payout.type'],
    [{ amount: 100, currency: 'EUR', payout: { type: 'bank', currency: 'USDC' } }, 'parameter_invalid', 'payout.currency'],
    [{ amount: 100, currency: 'EUR', metadata: { k: 5 } }, 'parameter_invalid', 'metadata.k'],
    [{ amount: 100, currency: 'EUR', colour: 'red' }, 'parameter_unknown', 'colour'],
  ])('rejects %j with %s on %s', async (body, code, param) => {
    const res = await create(merchant.testKey, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param });
  });

  it('needs the payments:write scope', async () => {
    const reader = await createMerchant({ scopes: ['payments:read'] });
    const res = await create(reader.testKey, { amount: 100, currency: 'EUR' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
  });
});

describe('GET /v1/payments', () => {
  it('retrieves its own payments and 404s across accounts and modes', async () => {
    const created = (await create(merchant.testKey, { amount: 100, currency: 'USD' })).body;
    expect((await call(api.url, 'GET', `/v1/payments/${created.id}`, { key: merchant.testKey })).body.id).toBe(created.id);
    const other = await createMerchant({ verified: true });
    for (const key of [other.testKey, other.liveKey]) {
      const res = await call(api.url, 'GET', `/v1/payments/${created.id}`, { key });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('resource_missing');
    }
    const verifiedSelf = await createMerchant({ verified: true });
    const sandboxPayment = (await create(verifiedSelf.testKey, { amount: 100, currency: 'USD' })).body;
    expect((await call(api.url, 'GET', `/v1/payments/${sandboxPayment.id}`, { key: verifiedSelf.liveKey })).status).toBe(404);
    expect((await call(api.url, 'GET', '/v1/payments/pmt_nope', { key: merchant.testKey })).status).toBe(404);
  });

  it('lists newest first with a stable cursor', async () => {
    const m = await createMerchant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(m.testKey, { amount: 100 + i, currency: 'USD' })).body.id);
    const page1 = await call(api.url, 'GET', '/v1/payments?limit=2', { key: m.testKey });
    expect(page1.body.ok).toBe(true);
    expect(page1.body.data.items.map((p: any) => p.id)).toEqual([ids[4], ids[3]]);
    expect(page1.body.data.hasMore).toBe(true);
    expect(page1.body.data.nextCursor).toBe(ids[3].slice(4));
    const page2 = await call(api.url, 'GET', `/v1/payments?limit=2&cursor=${page1.body.data.nextCursor}`, { key: m.testKey });
    expect(page2.body.data.items.map((p: any) => p.id)).toEqual([ids[2], ids[1]]);
    const page3 = await call(api.url, 'GET', `/v1/payments?limit=2&cursor=${page2.body.data.nextCursor}`, { key: m.testKey });
    expect(page3.body.data).toEqual({ items: [expect.objectContaining({ id: ids[0] })], nextCursor: null, hasMore: false });
    expect((await call(api.url, 'GET', '/v1/payments?limit=101', { key: m.testKey })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
    expect((await call(api.url, 'GET', '/v1/payments?cursor=abc', { key: m.testKey })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'cursor' });
  });
});

describe('checkout through the sandbox test helpers', () => {
  it('pays with 4242, succeeds, and pays out', async () => {
    const p = (await create(merchant.testKey, { amount: 1000, currency: 'USD', payout: { type: 'bank', currency: 'EUR' } })).body;
    const res = await call(api.url, 'POST', `/v1/test-helpers/payments/${p.id}/checkout`, { key: merchant.testKey, body: { method: 'card', card_number: '4242 4242 4242 4242' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', payment_method: { type: 'card', brand: 'visa', last4: '4242' } });
    const paid = await eventually(() => call(api.url, 'GET', `/v1/payments/${p.id}`, { key: merchant.testKey }), (r) => r.body.payout_status === 'paid');
    expect(paid.body.payout_status).toBe('paid');
    expect(await eventTypes(p.id)).toEqual(['payment.created', 'payment.requires_action', 'payment.processing', 'payment.succeeded', 'payout.paid']);
    const payout = await testDb().query('SELECT amount, currency, fx_rate FROM payouts WHERE payment_id = $1', [p.id.slice(4)]);
    expect(payout.rows[0]).toEqual({ amount: 926, currency: 'EUR', fx_rate: '0.925926' });
  });

  it('rejects a Luhn-invalid number and a method the payment does not allow', async () => {
    const p = (await create(merchant.testKey, { amount: 1000, currency: 'USD', methods: ['card'] })).body;
    const bad = await call(api.url, 'POST', `/v1/test-helpers/payments/${p.id}/checkout`, { key: merchant.testKey, body: { method: 'card', card_number: '4242424242424241' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'incorrect_number', param: 'card_number' });
    const sepa = await call(api.url, 'POST', `/v1/test-helpers/payments/${p.id}/checkout`, { key: merchant.testKey, body: { method: 'sepa' } });
    expect(sepa.body.error).toMatchObject({ code: 'parameter_invalid', param: 'method' });
  });

  it('is 404 with a live key', async () => {
    const m = await createMerchant({ verified: true });
    const p = (await create(m.liveKey, { amount: 1000, currency: 'USD' })).body;
    const res = await call(api.url, 'POST', `/v1/test-helpers/payments/${p.id}/checkout`, { key: m.liveKey, body: { method: 'card', card_number: '4242424242424242' } });
    expect(res.status).toBe(404);
  });
});

describe('POST /v1/payments/{id}/cancel', () => {
  it('cancels a waiting payment, then refuses a second cancel', async () => {
    const p = (await create(merchant.testKey, { amount: 1000, currency: 'USD' })).body;
    const res = await call(api.url, 'POST', `/v1/payments/${p.id}/cancel`, { key: merchant.testKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'canceled', cancellation_reason: 'requested_by_merchant' });
    const again = await call(api.url, 'POST', `/v1/payments/${p.id}/cancel`, { key: merchant.testKey });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'invalid_request_error', code: 'payment_unexpected_state' });
  });

  it('is a 409 once the payment succeeded', async () => {
    const p = (await create(merchant.testKey, { amount: 1000, currency: 'USD' })).body;
    await call(api.url, 'POST', `/v1/test-helpers/payments/${p.id}/checkout`, { key: merchant.testKey, body: { method: 'card', card_number: '4242424242424242' } });
    const res = await call(api.url, 'POST', `/v1/payments/${p.id}/cancel`, { key: merchant.testKey });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('payment_unexpected_state');
  });
});

describe('payments and webhooks together', () => {
  it('delivers the whole lifecycle to a registered endpoint, signed, with the spec snapshot', async () => {
    const m = await createMerchant();
    const receiver = await startReceiver();
    try {
      const endpoint = await call(api.url, 'POST', '/v1/webhook-endpoints', { key: m.testKey, body: { url: receiver.url, enabled_events: ['*'] } });
      expect(endpoint.status).toBe(200);
      const p = (await call(api.url, 'POST', '/v1/payments', { key: m.testKey, body: { amount: 1999, currency: 'GBP' } })).body;
      await call(api.url, 'POST', `/v1/test-helpers/payments/${p.id}/checkout`, { key: m.testKey, body: { method: 'card', card_number: '4242424242424242' } });
      await waitFor(() => receiver.requests.length >= 5, { what: 'five deliveries', timeoutMs: 40_000 });
      const bodies = receiver.requests.map((r) => JSON.parse(r.body));
      expect(bodies.map((b) => b.type).sort()).toEqual(['payment.created', 'payment.processing', 'payment.requires_action', 'payment.succeeded', 'payout.paid'].sort());
      const succeeded = receiver.requests.find((r) => JSON.parse(r.body).type === 'payment.succeeded')!;
      const event = JSON.parse(succeeded.body);
      expect(event).toMatchObject({ object: 'event', livemode: false, data: { object: { id: p.id.slice(4), amount: 1999, currency: 'gbp', status: 'succeeded' } } });
      expect(event.id).toMatch(/^evt_[0-9a-f-]{36}$/);
      expect(verifyServiceSignature({ payload: succeeded.body, header: String(succeeded.headers['service-signature']), secret: endpoint.body.secret })).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('the maintenance sweep starts a payment whose workflow a crash left unstarted', async () => {
    const m = await createMerchant();
    // Stored (as by an API process that died right after its commit), never started.
    const row = await insertPayment(testDb().pool, { accountId: m.accountId, livemode: false, amount: 700, currency: 'USD', payoutType: 'bank', payoutCurrency: 'USD', methods: ['card'], metadata: {} }, new Date(Date.now() - 60_000));
    const activities = createPaymentActivities({ db: testDb(), config: api.services.config, temporal: api.services.temporal, logger: api.services.logger, clock: () => new Date() });
    expect(await activities.startUnstartedPayments(30)).toBeGreaterThanOrEqual(1);
    const stored = await testDb().query('SELECT workflow_started_at FROM payments WHERE id = $1', [row.id]);
    expect(stored.rows[0].workflow_started_at).not.toBeNull();
    const description = await api.services.temporal.workflow.getHandle(paymentWorkflowId(row.id)).describe();
    expect(description.status.name).toBe('RUNNING');
    // A second sweep finds nothing left to start, and a duplicate start is refused, not an error.
    expect(await activities.startUnstartedPayments(30)).toBe(0);
  });
});
