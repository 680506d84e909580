import type { RunningApi } from '../../src/api';
import { call, closeTestDb, createMerchant, startTestApi, testDb, type TestMerchant } from '../support/stack';

let api: RunningApi;
let merchant: TestMerchant;

beforeAll(async () => {
  api = await startTestApi();
  merchant = await createMerchant({ verified: true });
});
afterAll(async () => {
  await api.close();
  await closeTestDb();
});

const createLink = (key: string, body: unknown, headers?: Record<string, string>) => call(api.url, 'POST', '/v1/payment-links', { key, body, headers });

/** The hosted page over real HTTP, as a browser without JavaScript would use it. */
async function page(method: 'GET' | 'POST', url: string): Promise<{ status: number; headers: Headers; html: string }> {
  const res = await fetch(url, {
    method,
    redirect: 'manual',
    ...(method === 'POST' ? { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' } : {}),
  });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

/** The page starts the payment's workflow after commit, as the API does. */
async function workflowStarted(paymentId: string, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await testDb().query('SELECT workflow_started_at FROM payments WHERE id = $1', [paymentId.slice('pmt_'.length)]);
    if (rows[0].workflow_started_at !== null) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function paymentsOfLink(linkId: string): Promise<number> {
  const { rows } = await testDb().query('SELECT count(*)::int AS n FROM payments WHERE payment_link_id = $1', [linkId.slice('plink_'.length)]);
  return rows[0].n;
}

describe('POST /v1/payment-links', () => {
  it('creates an active link with an absolute url under the base path', async () => {
    const res = await createLink(merchant.testKey, {
      title: 'Yoga class',
      amount: 2500,
      currency: 'EUR',
      methods: ['card', 'sepa'],
      payout: { type: 'wallet', currency: 'USDC' },
      metadata: { course: 'yoga' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^plink_[0-9a-f-]{36}$/),
      object: 'payment_link',
      url: `${api.url}/links/${res.body.id}`,
      title: 'Yoga class',
      amount: 2500,
      currency: 'EUR',
      active: true,
      livemode: false,
      created: expect.any(Number),
      methods: ['card', 'sepa'],
      payout: { type: 'wallet', currency: 'USDC' },
      metadata: { course: 'yoga' },
    });
    expect(Math.abs(res.body.created - Date.now() / 1000)).toBeLessThan(60);
  });

  it('applies the payment defaults: bank payout in the link currency, every method, no metadata', async () => {
    const res = await createLink(merchant.testKey, { title: 'Donation', amount: 500, currency: 'JPY' });
    expect(res.body).toMatchObject({ payout: { type: 'bank', currency: 'JPY' }, methods: ['card', 'apple_pay', 'google_pay', 'usdc', 'sepa'], metadata: {} });
  });

  it('creates live links with a live key of a verified account', async () => {
    const res = await createLink(merchant.liveKey, { title: 'Live', amount: 100, currency: 'USD' });
    expect(res.status).toBe(200);
    expect(res.body.livemode).toBe(true);
  });

  it.each([
    [{ amount: 100, currency: 'EUR' }, 'parameter_missing', 'title'],
    [{ title: '', amount: 100, currency: 'EUR' }, 'parameter_invalid', 'title'],
    [{ title: '   ', amount: 100, currency: 'EUR' }, 'parameter_invalid', 'title'],
    [{ title: 'x'.repeat(201), amount: 100, currency: 'EUR' }, 'parameter_invalid', 'title'],
    [{ title: 42, amount: 100, currency: 'EUR' }, 'parameter_invalid', 'title'],
    [{ title: 'T', currency: 'EUR' }, 'parameter_missing', 'amount'],
    [{ title: 'T', amount: 0, currency: 'EUR' }, 'parameter_invalid', 'amount'],
    [{ title: 'T', amount: 100_000_000, currency: 'EUR' }, 'parameter_invalid', 'amount'],
    [{ title: 'T', amount: 9.99, currency: 'EUR' }, 'parameter_invalid', 'amount'],
    [{ title: 'T', amount: 100 }, 'parameter_missing', 'currency'],
    [{ title: 'T', amount: 100, currency: 'eur' }, 'parameter_invalid', 'currency'],
    [{ title: 'T', amount: 100, currency: 'EUR', methods: ['cash'] }, 'parameter_invalid', 'methods[0]'],
    [{ title: 'T', amount: 100, currency: 'EUR', methods: ['card', 'card'] }, 'parameter_invalid', 'methods'],
    [{ title: 'T', amount: 100, currency: 'EUR', payout: { type: 'bank', currency: 'USDC' } }, 'parameter_invalid', 'payout.currency'],
    [{ title: 'T', amount: 100, currency: 'EUR', metadata: { k: 5 } }, 'parameter_invalid', 'metadata.k'],
    [{ title: 'T', amount: 100, currency: 'EUR', active: false }, 'parameter_unknown', 'active'],
  ])('rejects %j with %s on %s', async (body, code, param) => {
    const res = await createLink(merchant.testKey, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param });
  });

  it('accepts a 200-character title', async () => {
    expect((await createLink(merchant.testKey, { title: 'x'.repeat(200), amount: 100, currency: 'EUR' })).status).toBe(200);
  });

  it('replays a retry with the same Idempotency-Key instead of creating a second link', async () => {
    const m = await createMerchant();
    const body = { title: 'Once', amount: 100, currency: 'EUR' };
    const first = await createLink(m.testKey, body, { 'Idempotency-Key': 'link-once' });
    const again = await createLink(m.testKey, body, { 'Idempotency-Key': 'link-once' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const list = await call(api.url, 'GET', '/v1/payment-links', { key: m.testKey });
    expect(list.body.data.items).toHaveLength(1);
  });

  it('needs the payment_links scopes', async () => {
    const reader = await createMerchant({ scopes: ['payment_links:read'] });
    const writeRes = await createLink(reader.testKey, { title: 'T', amount: 100, currency: 'EUR' });
    expect(writeRes.status).toBe(403);
    expect(writeRes.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
    const paymentsOnly = await createMerchant({ scopes: ['payments:read', 'payments:write'] });
    const readRes = await call(api.url, 'GET', '/v1/payment-links', { key: paymentsOnly.testKey });
    expect(readRes.status).toBe(403);
    expect(readRes.body.error.code).toBe('insufficient_scope');
    const link = (await createLink(merchant.testKey, { title: 'T', amount: 100, currency: 'EUR' })).body;
    const deactivate = await call(api.url, 'POST', `/v1/payment-links/${link.id}/deactivate`, { key: reader.testKey, body: {} });
    expect(deactivate.status).toBe(403);
  });
});

describe('GET /v1/payment-links', () => {
  it('retrieves its own links and 404s across accounts and modes', async () => {
    const link = (await createLink(merchant.testKey, { title: 'Mine', amount: 100, currency: 'USD' })).body;
    const got = await call(api.url, 'GET', `/v1/payment-links/${link.id}`, { key: merchant.testKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(link);
    const other = await createMerchant({ verified: true });
    for (const key of [other.testKey, other.liveKey, merchant.liveKey]) {
      const res = await call(api.url, 'GET', `/v1/payment-links/${link.id}`, { key });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing', param: 'id' });
    }
    for (const id of ['plink_nope', link.id.replace('plink_', 'pmt_'), link.id.slice('plink_'.length)]) {
      expect((await call(api.url, 'GET', `/v1/payment-links/${id}`, { key: merchant.testKey })).status).toBe(404);
    }
  });

  it('lists newest first with a stable cursor and an active filter', async () => {
    const m = await createMerchant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createLink(m.testKey, { title: `Link ${i}`, amount: 100 + i, currency: 'USD' })).body.id);
    const page1 = await call(api.url, 'GET', '/v1/payment-links?limit=2', { key: m.testKey });
    expect(page1.body.ok).toBe(true);
    expect(page1.body.data.items.map((l: any) => l.id)).toEqual([ids[4], ids[3]]);
    expect(page1.body.data).toMatchObject({ hasMore: true, nextCursor: ids[3].slice('plink_'.length) });
    const page2 = await call(api.url, 'GET', `/v1/payment-links?limit=2&cursor=${page1.body.data.nextCursor}`, { key: m.testKey });
    expect(page2.body.data.items.map((l: any) => l.id)).toEqual([ids[2], ids[1]]);
    const page3 = await call(api.url, 'GET', `/v1/payment-links?limit=2&cursor=${page2.body.data.nextCursor}`, { key: m.testKey });
    expect(page3.body.data).toEqual({ items: [expect.objectContaining({ id: ids[0] })], nextCursor: null, hasMore: false });
    const all = await call(api.url, 'GET', '/v1/payment-links', { key: m.testKey });
    expect(all.body.data.items).toHaveLength(5);

    await call(api.url, 'POST', `/v1/payment-links/${ids[1]}/deactivate`, { key: m.testKey, body: {} });
    const inactive = await call(api.url, 'GET', '/v1/payment-links?active=false', { key: m.testKey });
    expect(inactive.body.data.items.map((l: any) => l.id)).toEqual([ids[1]]);
    const active = await call(api.url, 'GET', '/v1/payment-links?active=true', { key: m.testKey });
    expect(active.body.data.items.map((l: any) => l.id)).toEqual([ids[4], ids[3], ids[2], ids[0]]);

    expect((await call(api.url, 'GET', '/v1/payment-links?limit=0', { key: m.testKey })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
    expect((await call(api.url, 'GET', '/v1/payment-links?limit=101', { key: m.testKey })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
    expect((await call(api.url, 'GET', '/v1/payment-links?cursor=abc', { key: m.testKey })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'cursor' });
    expect((await call(api.url, 'GET', '/v1/payment-links?active=yes', { key: m.testKey })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'active' });
  });

  it('serves the list from its index, in order, without a sort', async () => {
    const client = await testDb().pool.connect();
    try {
      await client.query('BEGIN');
      // The test table is tiny, so the planner would rightly pick a sequential scan; this asks which index fits.
      await client.query('SET LOCAL enable_seqscan = off');
      const { rows } = await client.query(
        `EXPLAIN SELECT * FROM payment_links WHERE account_id = $1 AND livemode = false AND id < $2 ORDER BY id DESC LIMIT 21`,
        [merchant.accountId, '01900000-0000-7000-8000-000000000000'],
      );
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('payment_links_list_idx');
      expect(plan).not.toMatch(/\bSort\b/);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('keeps sandbox and live lists apart', async () => {
    const m = await createMerchant({ verified: true });
    const test = (await createLink(m.testKey, { title: 'Sandbox', amount: 100, currency: 'USD' })).body;
    const live = (await createLink(m.liveKey, { title: 'Live', amount: 100, currency: 'USD' })).body;
    expect((await call(api.url, 'GET', '/v1/payment-links', { key: m.testKey })).body.data.items.map((l: any) => l.id)).toEqual([test.id]);
    expect((await call(api.url, 'GET', '/v1/payment-links', { key: m.liveKey })).body.data.items.map((l: any) => l.id)).toEqual([live.id]);
  });
});

describe('POST /v1/payment-links/{id}/deactivate', () => {
  it('deactivates, idempotently, and 404s across accounts and modes', async () => {
    const link = (await createLink(merchant.testKey, { title: 'Seasonal', amount: 100, currency: 'EUR' })).body;
    const other = await createMerchant({ verified: true });
    for (const key of [other.testKey, merchant.liveKey]) {
      const res = await call(api.url, 'POST', `/v1/payment-links/${link.id}/deactivate`, { key, body: {} });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('resource_missing');
    }
    expect((await call(api.url, 'GET', `/v1/payment-links/${link.id}`, { key: merchant.testKey })).body.active).toBe(true);

    const first = await call(api.url, 'POST', `/v1/payment-links/${link.id}/deactivate`, { key: merchant.testKey, body: {} });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ...link, active: false });
    // No body at all is the same as {}.
    const second = await call(api.url, 'POST', `/v1/payment-links/${link.id}/deactivate`, { key: merchant.testKey });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ ...link, active: false });
    expect((await call(api.url, 'GET', `/v1/payment-links/${link.id}`, { key: merchant.testKey })).body.active).toBe(false);
    expect((await call(api.url, 'POST', '/v1/payment-links/plink_nope/deactivate', { key: merchant.testKey, body: {} })).status).toBe(404);
    const unknownParam = await call(api.url, 'POST', `/v1/payment-links/${link.id}/deactivate`, { key: merchant.testKey, body: { active: true } });
    expect(unknownParam.body.error).toMatchObject({ code: 'parameter_unknown', param: 'active' });
  });
});

describe('hosted link page', () => {
  it('shows the title (escaped) and the formatted amount with a plain Pay form', async () => {
    const title = `Tom's <script>alert("x")</script> & co`;
    const link = (await createLink(merchant.testKey, { title, amount: 123456, currency: 'EUR' })).body;
    const res = await page('GET', link.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.html).toContain('Tom&#39;s &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co');
    expect(res.html).not.toContain('<script>');
    expect(res.html).toContain('€1,234.56');
    expect(res.html).toMatch(/<form method="post">\s*<button type="submit">Pay<\/button>\s*<\/form>/);
    expect(res.html).toContain('<html lang="en">');
    expect(res.html).toContain('name="viewport"');
    expect(res.html).toContain('Sandbox');

    const yen = (await createLink(merchant.testKey, { title: 'Tea', amount: 500, currency: 'JPY' })).body;
    expect((await page('GET', yen.url)).html).toContain('¥500');
  });

  it('creates a new payment for each payer and 303s to its checkout', async () => {
    const link = (
      await createLink(merchant.testKey, { title: 'Workshop', amount: 4200, currency: 'GBP', methods: ['card'], payout: { type: 'bank', currency: 'EUR' }, metadata: { event: 'ws-1' } })
    ).body;
    const locations: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await page('POST', link.url);
      expect(res.status).toBe(303);
      locations.push(res.headers.get('location')!);
    }
    expect(new Set(locations).size).toBe(2);
    for (const location of locations) {
      const id = location.match(/\/checkout\/(pmt_[0-9a-f-]{36})$/)![1];
      const payment = await call(api.url, 'GET', `/v1/payments/${id}`, { key: merchant.testKey });
      expect(payment.body).toMatchObject({
        status: 'requires_action',
        checkout_url: location,
        payment_link: link.id,
        amount: 4200,
        currency: 'GBP',
        methods: ['card'],
        payout: { type: 'bank', currency: 'EUR' },
        metadata: { event: 'ws-1' },
        livemode: false,
      });
      const events = await testDb().query(`SELECT type FROM events WHERE data->'object'->>'id' = $1 ORDER BY id`, [id.slice(4)]);
      expect(events.rows.map((r) => r.type)).toEqual(['payment.created', 'payment.requires_action']);
      expect(await workflowStarted(id)).toBe(true);
    }
    expect(await paymentsOfLink(link.id)).toBe(2);
    // The payer lands on the hosted checkout of their own payment.
    const checkout = await page('GET', locations[0]);
    expect(checkout.status).toBe(200);
    expect(checkout.html).toContain('£42.00');
    const listed = await call(api.url, 'GET', '/v1/payments?limit=2', { key: merchant.testKey });
    expect(listed.body.data.items.map((p: any) => p.payment_link)).toEqual([link.id, link.id]);
  });

  it('answers 410 for a deactivated link, 404 for an unknown one, and creates nothing', async () => {
    const link = (await createLink(merchant.testKey, { title: 'Gone soon', amount: 100, currency: 'USD' })).body;
    await call(api.url, 'POST', `/v1/payment-links/${link.id}/deactivate`, { key: merchant.testKey, body: {} });
    for (const method of ['GET', 'POST'] as const) {
      const res = await page(method, link.url);
      expect(res.status).toBe(410);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.html).toContain('This payment link is no longer active');
      expect(res.html).not.toContain('<form');
    }
    expect(await paymentsOfLink(link.id)).toBe(0);

    for (const id of [link.id.replace(/[0-9a-f]{12}$/, '000000000000'), 'plink_nope', '<b>']) {
      for (const method of ['GET', 'POST'] as const) {
        const res = await page(method, `${api.url}/links/${encodeURIComponent(id)}`);
        expect(res.status).toBe(404);
        expect(res.html).toContain('This payment link is no longer active');
      }
    }
  });

  it('creates live payments from a live link', async () => {
    const link = (await createLink(merchant.liveKey, { title: 'Live', amount: 100, currency: 'USD' })).body;
    expect((await page('GET', link.url)).html).not.toContain('Sandbox');
    const res = await page('POST', link.url);
    expect(res.status).toBe(303);
    const id = res.headers.get('location')!.split('/').pop();
    const payment = await call(api.url, 'GET', `/v1/payments/${id}`, { key: merchant.liveKey });
    expect(payment.body).toMatchObject({ livemode: true, payment_link: link.id });
  });

  it('hands out link and checkout URLs under the base path', async () => {
    const prefixed = await startTestApi({ BASE_PATH: '/pay' });
    try {
      const port = (prefixed.server.address() as { port: number }).port;
      const link = (await call(`http://127.0.0.1:${port}/pay`, 'POST', '/v1/payment-links', { key: merchant.testKey, body: { title: 'Prefixed', amount: 100, currency: 'USD' } })).body;
      expect(link.url).toBe(`http://127.0.0.1:${port}/pay/links/${link.id}`);
      expect((await page('GET', link.url)).status).toBe(200);
      expect((await page('GET', `http://127.0.0.1:${port}/links/${link.id}`)).status).toBe(404);
      const res = await page('POST', link.url);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/pay/checkout/pmt_`));
    } finally {
      await prefixed.close();
    }
  });
});
