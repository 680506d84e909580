import type { Browser, Page } from 'playwright-core';
import type { RunningApi } from '../../src/api';
import { verifyServiceSignature } from '../../src/webhooks/signature';
import { launchBrowser, screenshot } from '../support/browser';
import { uniqueEmail } from '../support/dashboard';
import { startReceiver, waitFor } from '../support/receiver';
import { call, closeTestDb, startTestApi, testDb } from '../support/stack';

let api: RunningApi;
let browser: Browser;
const receivers: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  api = await startTestApi();
  browser = await launchBrowser();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await browser?.close();
  await api.close();
  await closeTestDb();
});

const dash = (p = '') => `${api.url}/dashboard${p}`;

async function signUp(page: Page, name: string): Promise<string> {
  await page.goto(dash('/signup'));
  await page.getByLabel('Business name').fill(name);
  await page.getByLabel('E-mail').fill(uniqueEmail('hooks'));
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: `Welcome, ${name}` }).waitFor();
  return page.getByLabel(/Secret key/).inputValue();
}

/** Reloads until the predicate holds (deliveries and retries are asynchronous workflows). */
async function reloadUntil(page: Page, check: () => Promise<boolean>, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await page.waitForTimeout(500);
    await page.reload();
  }
}

/** Without waiting: the newest delivery's status, or undefined while there is none. */
const firstDeliveryStatus = async (page: Page) => (await page.getByTestId('delivery-status').allTextContents())[0];

it('adds an endpoint, sees a failed then succeeded delivery with bodies, replays it, and rotates the secret', async () => {
  // The receiver fails the first request and accepts every later one.
  const receiver = await startReceiver((_req, i) => (i === 0 ? { status: 500, body: 'receiver down' } : { status: 200, body: 'thanks' }));
  receivers.push(receiver);
  const page = await browser.newPage();
  await signUp(page, 'Hooks Bakery');

  await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
  await page.getByLabel('URL').fill(receiver.url);
  await page.getByLabel('Description').fill('Orders <backend>');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const secret = await page.getByTestId('signing-secret').inputValue();
  expect(secret).toMatch(/^whsec_/);
  await screenshot(page, 'dashboard-webhook-secret');
  await page.getByRole('link', { name: 'Go to the endpoint' }).click();
  expect(await page.content()).not.toContain(secret);
  expect(await page.content()).toContain('Orders &lt;backend&gt;');

  await page.getByRole('button', { name: 'Send test event' }).click();
  // Attempt 1 gets 500, attempt 2 (about 5 s later) gets 200.
  await reloadUntil(page, async () => (await firstDeliveryStatus(page)) === 'succeeded', 'the retried delivery');
  const delivery = page.getByTestId('delivery').first();
  const attempts = delivery.getByTestId('attempt');
  expect(await attempts.count()).toBe(2);
  await attempts.nth(0).locator('summary').click();
  await attempts.nth(1).locator('summary').click();
  expect(await attempts.nth(0).getByTestId('response-status').textContent()).toBe('500');
  expect(await attempts.nth(0).getByTestId('response-body').textContent()).toBe('receiver down');
  expect(await attempts.nth(1).getByTestId('response-status').textContent()).toBe('200');
  expect(await attempts.nth(1).getByTestId('response-body').textContent()).toBe('thanks');
  // The request body shown is exactly what the receiver got, and it is a marked test event.
  const sent = JSON.parse((await attempts.nth(1).getByTestId('request-body').textContent())!);
  expect(sent).toEqual(JSON.parse(receiver.requests[1].body));
  expect(sent.data.object.test_event).toBe(true);
  expect(verifyServiceSignature({ payload: receiver.requests[1].body, header: receiver.requests[1].headers['service-signature'] as string, secret })).toBe(true);
  expect(await delivery.getByTestId('delivery-workflow-link').getAttribute('href')).toMatch(/^http:\/\/localhost:8233\/namespaces\/default\/workflows\/.+/);
  await screenshot(page, 'dashboard-webhook-deliveries');

  // Replay: a third request to the receiver, and a second delivery on the page.
  await delivery.getByRole('button', { name: 'Replay' }).click();
  await waitFor(() => receiver.requests[2], { what: 'the replayed request' });
  expect(JSON.parse(receiver.requests[2].body).id).toBe(sent.id);
  await reloadUntil(page, async () => (await page.getByTestId('delivery').count()) === 2 && (await firstDeliveryStatus(page)) === 'succeeded', 'the replay delivery');
  expect(await page.getByTestId('delivery').first().textContent()).toContain('replay');

  // The event page shows the pretty-printed event and both deliveries.
  await page.getByRole('link', { name: sent.id }).first().click();
  expect(JSON.parse((await page.getByTestId('event-json').textContent())!)).toEqual(sent);
  expect(await page.getByTestId('delivery').count()).toBe(2);
  await screenshot(page, 'dashboard-event');
  await page.getByRole('link', { name: 'Events', exact: true }).click();
  await page.getByLabel('Type').selectOption('payment.succeeded');
  await page.getByRole('button', { name: 'Filter' }).click();
  expect(await page.getByTestId('event-row').count()).toBe(1);
  await page.getByLabel('Type').selectOption('payout.paid');
  await page.getByRole('button', { name: 'Filter' }).click();
  expect(await page.getByTestId('event-row').count()).toBe(0);

  // Rotation shows the new secret once; the next delivery is signed with it.
  await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
  await page.getByRole('link', { name: receiver.url }).click();
  const endpointPath = page.url().replace(dash(), '');
  await page.getByRole('button', { name: 'Rotate secret' }).click();
  const rotated = await page.getByTestId('signing-secret').inputValue();
  expect(rotated).toMatch(/^whsec_/);
  expect(rotated).not.toBe(secret);
  await screenshot(page, 'dashboard-webhook-rotated');
  for (const p of ['/webhooks', '/events', endpointPath]) {
    await page.goto(dash(p));
    const htmlText = await page.content();
    expect(htmlText).not.toContain(rotated);
    expect(htmlText).not.toContain(secret);
  }
  await page.getByRole('button', { name: 'Send test event' }).click();
  const fourth = await waitFor(() => receiver.requests[3], { what: 'the post-rotation request' });
  expect(verifyServiceSignature({ payload: fourth.body, header: fourth.headers['service-signature'] as string, secret: rotated })).toBe(true);

  // Edit, disable, enable, delete.
  await page.getByLabel('Description').fill('Renamed');
  await page.getByRole('button', { name: 'Save' }).click();
  expect(await page.content()).toContain('Renamed');
  await page.getByRole('button', { name: 'Disable' }).click();
  expect(await page.getByTestId('endpoint-status').textContent()).toBe('disabled');
  await page.getByRole('button', { name: 'Enable' }).click();
  expect(await page.getByTestId('endpoint-status').textContent()).toBe('enabled');
  await page.getByRole('button', { name: 'Delete endpoint' }).click();
  expect(await page.getByTestId('endpoint-row').count()).toBe(0);
  await page.close();
});

it('creates and deactivates a payment link in major units, and saves the payments list screenshot for the README', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const key = await signUp(page, 'Links & Co');
  await page.goto(dash('/payment-links'));
  await page.getByLabel('Title').fill('Yoga <10 sessions>');
  await page.getByLabel('Amount').fill('12.5');
  await page.getByLabel('Currency').selectOption('EUR');
  await page.getByRole('button', { name: 'Create link' }).click();
  const row = page.getByTestId('link-row').first();
  expect(await row.textContent()).toContain('Yoga <10 sessions>');
  expect(await row.textContent()).toContain('€12.50');
  const listed = await call(api.url, 'GET', '/v1/payment-links', { key });
  expect(listed.body.data.items[0]).toMatchObject({ title: 'Yoga <10 sessions>', amount: 1250, currency: 'EUR', active: true });
  // JPY has no minor unit: decimals are refused, whole yen are stored as is.
  await page.getByLabel('Title').fill('Tea');
  await page.getByLabel('Amount').fill('12.5');
  await page.getByLabel('Currency').selectOption('JPY');
  await page.getByRole('button', { name: 'Create link' }).click();
  expect(await page.getByText('Enter a whole amount (no decimals).').count()).toBe(1);
  await page.getByLabel('Amount').fill('1200');
  await page.getByRole('button', { name: 'Create link' }).click();
  expect((await call(api.url, 'GET', '/v1/payment-links', { key })).body.data.items[0]).toMatchObject({ amount: 1200, currency: 'JPY' });
  await screenshot(page, 'dashboard-payment-links');
  await page.getByRole('button', { name: 'Deactivate Yoga <10 sessions>' }).click();
  expect(await page.getByTestId('link-row').nth(1).textContent()).toContain('Deactivated');
  const link = (await call(api.url, 'GET', '/v1/payment-links', { key })).body.data.items[1];
  expect(link.active).toBe(false);

  // A few paid and open payments for the README's picture of the payments list.
  for (const [amount, currency, pay] of [[4200, 'EUR', true], [1999, 'USD', true], [350000, 'JPY', false]] as const) {
    const created = await call(api.url, 'POST', '/v1/payments', { key, body: { amount, currency } });
    expect(created.status).toBe(200);
    if (pay) expect((await call(api.url, 'POST', `/v1/test-helpers/payments/${created.body.id}/checkout`, { key, body: { method: 'card', card_number: '4242424242424242' } })).status).toBe(200);
  }
  await page.goto(dash('/payments'));
  expect(await page.getByTestId('payment-row').count()).toBe(3);
  // docs/dashboard.png is a copy of this screenshot (copied by hand, so test runs never touch tracked files).
  await screenshot(page, 'dashboard-payments-readme');
  const { rows } = await testDb().query('SELECT count(*)::int AS n FROM payment_links WHERE title = $1', ['Yoga <10 sessions>']);
  expect(rows[0].n).toBeGreaterThanOrEqual(1);
  await page.close();
});
