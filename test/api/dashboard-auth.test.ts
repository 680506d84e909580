import type { RunningApi } from '../../src/api';
import { DashboardClient, uniqueEmail } from '../support/dashboard';
import { call, closeTestDb, startTestApi, testDb } from '../support/stack';

let api: RunningApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api.close();
  await closeTestDb();
});

const PASSWORD = 'correct horse battery';

it('pages redirect to sign-in without a session (and with a bogus one)', async () => {
  const anon = new DashboardClient(api.url);
  for (const path of ['/payments', '/payments/pmt_0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e', '/keys', '/verification', '/', '']) {
    const res = await anon.get(path);
    expect(res.status).toBe(303);
    expect(res.location).toMatch(/\/(signin|payments)$/);
  }
  const res = await anon.get('/keys');
  expect(res.location).toBe(`${new URL(api.url).pathname.replace(/\/$/, '')}/dashboard/signin`);
  anon.cookies.set('dash_session', 'x'.repeat(43));
  expect((await anon.get('/payments')).status).toBe(303);
  for (const path of ['/keys', '/mode', '/signout', '/verification']) {
    expect((await anon.post(path, { _csrf: 'whatever' })).status).toBe(303);
  }
});

it('sets an httpOnly, SameSite=Lax session cookie scoped to the dashboard, stored only as a hash', async () => {
  const client = new DashboardClient(api.url);
  const _csrf = await client.csrf('/signup');
  const res = await client.post('/signup', { _csrf, business_name: 'Cookie Ltd', email: uniqueEmail('cookie'), password: PASSWORD });
  expect(res.status).toBe(201);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('dash_session='))!;
  expect(cookie).toMatch(/; HttpOnly/);
  expect(cookie).toMatch(/; SameSite=Lax/);
  expect(cookie).toMatch(/; Path=\/dashboard/);
  expect(cookie).not.toMatch(/Secure/); // PUBLIC_BASE_URL is http in tests
  const token = client.cookies.get('dash_session')!;
  const { rows } = await testDb().query('SELECT count(*)::int AS n FROM dashboard_sessions WHERE token_hash = $1', [token]);
  expect(rows[0].n).toBe(0);
  const { rows: users } = await testDb().query("SELECT password_hash FROM dashboard_users WHERE password_hash LIKE '%correct horse%'");
  expect(users).toHaveLength(0);
});

it('every state-changing form refuses a missing or wrong CSRF token with 403', async () => {
  const client = new DashboardClient(api.url);
  await client.signUp(uniqueEmail('csrf'));
  const keys = await client.get('/keys');
  const keyId = /data-key-id="(key_[^"]+)"/.exec(keys.text)![1];
  const forms: Array<[string, Record<string, string>]> = [
    ['/keys', { name: 'x', scopes: 'payments:read' }],
    [`/keys/${keyId}/revoke`, {}],
    ['/mode', { mode: 'live' }],
    ['/verification', { 'business.legal_name': 'Acme' }],
    ['/signout', {}],
  ];
  for (const [path, form] of forms) {
    expect({ path, status: (await client.post(path, form)).status }).toEqual({ path, status: 403 });
    expect({ path, status: (await client.post(path, { ...form, _csrf: 'wrong-token' })).status }).toEqual({ path, status: 403 });
  }
  // Nothing happened: the key is active, the session still works, the mode is unchanged.
  const after = await client.get('/keys');
  expect(after.status).toBe(200);
  expect(after.text).toContain('Sandbox mode');
  expect(after.text).not.toContain('Revoked');

  // Sign-up and sign-in (no session yet) use a double-submit token.
  const anon = new DashboardClient(api.url);
  await anon.get('/signin');
  expect((await anon.post('/signin', { email: 'a@example.test', password: PASSWORD })).status).toBe(403);
  expect((await anon.post('/signin', { _csrf: 'wrong', email: 'a@example.test', password: PASSWORD })).status).toBe(403);
  expect((await anon.post('/signup', { business_name: 'X Ltd', email: uniqueEmail('nocsrf'), password: PASSWORD })).status).toBe(403);
  // A token from another browser (cookie not sent) is refused as well.
  const other = new DashboardClient(api.url);
  const foreign = await anon.csrf('/signin');
  expect((await other.post('/signin', { _csrf: foreign, email: 'a@example.test', password: PASSWORD })).status).toBe(403);
});

it('one account never sees another account’s payment (404), nor another mode’s', async () => {
  const alice = new DashboardClient(api.url);
  const aliceKey = await alice.signUp(uniqueEmail('alice'));
  const bob = new DashboardClient(api.url);
  await bob.signUp(uniqueEmail('bob'));
  const created = await call(api.url, 'POST', '/v1/payments', { key: aliceKey, body: { amount: 1234, currency: 'EUR' } });
  expect(created.status).toBe(200);
  const mine = await alice.get(`/payments/${created.body.id}`);
  expect(mine.status).toBe(200);
  expect(mine.text).toContain(created.body.id);
  const theirs = await bob.get(`/payments/${created.body.id}`);
  expect(theirs.status).toBe(404);
  expect(theirs.text).not.toContain('€12.34');
  expect((await bob.get('/payments')).text).not.toContain(created.body.id);
  // Alice in live mode does not see her sandbox payment either.
  const _csrf = await alice.csrf('/payments');
  expect((await alice.post('/mode', { _csrf, mode: 'live', return_to: '/dashboard/payments' })).status).toBe(303);
  expect((await alice.get(`/payments/${created.body.id}`)).status).toBe(404);
  expect((await alice.get('/payments/not-an-id')).status).toBe(404);
});

it('locks an e-mail after 5 failed sign-ins, with a generic message, even for the right password', async () => {
  const email = uniqueEmail('lock');
  const owner = new DashboardClient(api.url);
  await owner.signUp(email);
  const attacker = new DashboardClient(api.url, { 'X-Forwarded-For': '198.51.100.7' });
  const _csrf = await attacker.csrf('/signin');
  for (let i = 0; i < 5; i++) {
    const res = await attacker.post('/signin', { _csrf, email, password: `wrong password ${i}` });
    expect(res.status).toBe(401);
    expect(res.text).toContain('Incorrect e-mail or password.');
  }
  const unknown = await attacker.post('/signin', { _csrf, email: uniqueEmail('nobody'), password: 'wrong password' });
  expect(unknown.status).toBe(401);
  expect(unknown.text).toContain('Incorrect e-mail or password.');
  const locked = await attacker.post('/signin', { _csrf, email, password: PASSWORD });
  expect(locked.status).toBe(429);
  expect(locked.text).toContain('Too many failed sign-in attempts');
  expect(attacker.cookies.has('dash_session')).toBe(false);
  // From another address too: the lock is per e-mail.
  const fromElsewhere = new DashboardClient(api.url, { 'X-Forwarded-For': '203.0.113.9' });
  const csrf2 = await fromElsewhere.csrf('/signin');
  expect((await fromElsewhere.post('/signin', { _csrf: csrf2, email, password: PASSWORD })).status).toBe(429);
  // Another e-mail signs in fine from that address.
  const otherEmail = uniqueEmail('fine');
  await new DashboardClient(api.url).signUp(otherEmail);
  const ok = await fromElsewhere.post('/signin', { _csrf: csrf2, email: otherEmail, password: PASSWORD });
  expect(ok.status).toBe(303);
  expect(ok.location).toMatch(/\/dashboard\/payments$/);
  expect((await fromElsewhere.get('/payments')).status).toBe(200);
});

it('limits failed sign-ins per client address across e-mails', async () => {
  const client = new DashboardClient(api.url, { 'X-Forwarded-For': '192.0.2.44' });
  const _csrf = await client.csrf('/signin');
  for (let i = 0; i < 30; i++) {
    expect((await client.post('/signin', { _csrf, email: uniqueEmail(`spray${i}`), password: 'wrong password' })).status).toBe(401);
  }
  const email = uniqueEmail('victim');
  await new DashboardClient(api.url).signUp(email);
  expect((await client.post('/signin', { _csrf, email, password: PASSWORD })).status).toBe(429);
});

it('signs out: the session is deleted server-side', async () => {
  const client = new DashboardClient(api.url);
  await client.signUp(uniqueEmail('out'));
  const token = client.cookies.get('dash_session')!;
  const _csrf = await client.csrf('/payments');
  const res = await client.post('/signout', { _csrf });
  expect(res.status).toBe(303);
  client.cookies.set('dash_session', token); // replaying the old cookie does not work
  expect((await client.get('/payments')).status).toBe(303);
});

it('sign-up validates its fields visibly and refuses a taken e-mail', async () => {
  const client = new DashboardClient(api.url);
  let _csrf = await client.csrf('/signup');
  const bad = await client.post('/signup', { _csrf, business_name: '', email: 'not-an-email', password: 'short' });
  expect(bad.status).toBe(400);
  expect(bad.text).toContain('role="alert"');
  expect(bad.text).toContain('aria-invalid="true"');
  expect(bad.text).toContain('Use at least 10 characters.');
  const email = uniqueEmail('taken');
  await new DashboardClient(api.url).signUp(email);
  _csrf = await client.csrf('/signup');
  const taken = await client.post('/signup', { _csrf, business_name: 'Other Ltd', email: email.toUpperCase(), password: PASSWORD });
  expect(taken.status).toBe(400);
  expect(taken.text).not.toContain('sk_test_');
});

it('pages the payments list newest first with a cursor, and filters by status', async () => {
  const client = new DashboardClient(api.url);
  const key = await client.signUp(uniqueEmail('paging'));
  const ids: string[] = [];
  for (let i = 0; i < 23; i++) ids.push((await call(api.url, 'POST', '/v1/payments', { key, body: { amount: 100 + i, currency: 'EUR' } })).body.id);
  const canceled = await call(api.url, 'POST', `/v1/payments/${ids[0]}/cancel`, { key });
  expect(canceled.status).toBe(200);
  const rowIds = (text: string) => [...text.matchAll(/data-testid="payment-row"><td><a href="[^"]+"><code>(pmt_[^<]+)<\/code>/g)].map((m) => m[1]);
  const first = await client.get('/payments');
  expect(rowIds(first.text)).toEqual([...ids].reverse().slice(0, 20));
  const next = /href="([^"]+)" rel="next"/.exec(first.text)![1].replace(/&amp;/g, '&');
  const second = await client.get(next.slice(next.indexOf('/dashboard') + '/dashboard'.length));
  expect(rowIds(second.text)).toEqual([...ids].reverse().slice(20));
  expect(second.text).not.toContain('rel="next"');
  const filtered = await client.get('/payments?status=canceled');
  expect(rowIds(filtered.text)).toEqual([ids[0]]);
  // A malformed cursor or status is ignored rather than an error page.
  expect((await client.get('/payments?cursor=nope&status=bogus')).status).toBe(200);

  // Amount range (minor units) and created-date range (UTC days).
  expect(rowIds((await client.get('/payments?amount_min=120&amount_max=122')).text)).toEqual([ids[22], ids[21], ids[20]]);
  const today = new Date().toISOString().slice(0, 10);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  expect(rowIds((await client.get(`/payments?from=${today}&to=${today}&amount_max=100`)).text)).toEqual([ids[0]]);
  expect(rowIds((await client.get(`/payments?from=${tomorrow}`)).text)).toEqual([]);
  const filteredPage = await client.get('/payments?amount_min=100&amount_max=200');
  expect(/href="([^"]+)" rel="next"/.exec(filteredPage.text)![1]).toContain('amount_min=100');
  expect((await client.get('/payments?from=2026-13-45&amount_min=-5')).status).toBe(200);
});

it('under a path prefix on https: the dashboard lives at /prefix/dashboard with a Secure cookie', async () => {
  const prefixed = await startTestApi({ PUBLIC_BASE_URL: 'https://pay.example.test/api' });
  try {
    expect(prefixed.url).toMatch(/\/api$/);
    const client = new DashboardClient(prefixed.url);
    const signin = await client.get('/signin');
    expect(signin.status).toBe(200);
    expect(signin.text).toContain('action="/api/dashboard/signin"');
    expect(signin.headers.getSetCookie()[0]).toMatch(/^dash_csrf=[^;]+; Path=\/api\/dashboard; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure$/);
    await client.signUp(uniqueEmail('prefix'));
    const redirect = await new DashboardClient(prefixed.url).get('/keys');
    expect(redirect.location).toBe('/api/dashboard/signin');
    expect((await client.get('/keys')).status).toBe(200);
  } finally {
    await prefixed.close();
  }
});
