import type { Browser, Page } from 'playwright-core';
import type { RunningApi } from '../../src/api';
import { launchBrowser, screenshot } from '../support/browser';
import { uniqueEmail } from '../support/dashboard';
import { call, closeTestDb, startTestApi } from '../support/stack';

let api: RunningApi;
let browser: Browser;

beforeAll(async () => {
  api = await startTestApi();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await api.close();
  await closeTestDb();
});

const PASSWORD = 'correct horse battery';
const dash = (path = '') => `${api.url}/dashboard${path}`;

/** Signs up through the form; returns the sandbox secret shown once. */
async function signUp(page: Page, name: string, email = uniqueEmail('ui')): Promise<string> {
  await page.goto(dash('/signup'));
  await page.getByLabel('Business name').fill(name);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: `Welcome, ${name}` }).waitFor();
  const secret = await page.getByLabel(/Secret key/).inputValue();
  expect(secret).toMatch(/^sk_test_[A-Za-z0-9_-]{32,}$/);
  return secret;
}

it('signs up, copies the sandbox key, creates and pays a payment with it, and sees it in the list and detail', async () => {
  const page = await browser.newPage();
  const secret = await signUp(page, 'Journey Coffee');
  await screenshot(page, 'dashboard-signup-key');
  // The key works at once with the API.
  const created = await call(api.url, 'POST', '/v1/payments', { key: secret, body: { amount: 4200, currency: 'EUR', methods: ['card'] } });
  expect(created.status).toBe(200);

  // Pay it at checkout, so the detail has a method, events and a payout.
  await page.goto(created.body.checkout_url);
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByLabel('Expiry (MM/YY)').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: /^Pay €42\.00$/ }).click();
  await page.getByText('Payment successful').waitFor();

  await page.goto(dash('/payments'));
  const row = page.getByTestId('payment-row').filter({ hasText: created.body.id });
  await row.waitFor();
  expect(await row.textContent()).toContain('€42.00');
  // The status filter keeps it under succeeded and hides it under canceled.
  await page.getByLabel('Status').selectOption('canceled');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.getByTestId('payment-row').count()).resolves.toBe(0);
  await page.getByLabel('Status').selectOption('succeeded');
  await page.getByRole('button', { name: 'Filter' }).click();
  await screenshot(page, 'dashboard-payments-list');
  await page.getByRole('link', { name: created.body.id }).click();

  // Settlement is 1 s in tests: reload until the payout is paid.
  const deadline = Date.now() + 60_000;
  while (!(await page.getByTestId('payout-status').textContent())?.includes('paid') && Date.now() < deadline) {
    await page.waitForTimeout(500);
    await page.reload();
  }
  expect(await page.getByTestId('payment-status').textContent()).toBe('succeeded');
  expect(await page.getByTestId('payout-status').textContent()).toContain('paid');
  expect(await page.getByText('card visa •••• 4242').count()).toBe(1);
  const types = await page.getByTestId('event-row').locator('td:nth-child(2)').allTextContents();
  expect(types).toEqual(['payment.created', 'payment.requires_action', 'payment.processing', 'payment.succeeded', 'payout.paid']);
  const href = await page.getByTestId('workflow-link').getAttribute('href');
  expect(href).toBe(`http://localhost:8233/namespaces/default/workflows/payment-${created.body.id}`);
  await screenshot(page, 'dashboard-payment-detail');
  // The key is never shown again.
  for (const path of ['/payments', '/keys', '/verification']) {
    await page.goto(dash(path));
    expect(await page.content()).not.toContain(secret);
  }
  await page.close();
});

it('goes through verification with a visible field error, polls until verified, and live keys work', async () => {
  const page = await browser.newPage();
  await signUp(page, 'Verify Me Ltd');
  await page.getByRole('link', { name: 'Verification' }).click();
  expect(await page.getByTestId('verification-status').textContent()).toBe('not_started');
  await page.getByLabel('Legal name').fill('Verify Me Ltd');
  await page.getByLabel('Country').fill('gb');
  await page.getByLabel('Registration number').fill('09876543');
  await page.getByLabel('Full name').fill('Grace Hopper');
  await page.getByLabel('Date of birth').fill('1980-05-17');
  await page.getByLabel('Bank account (IBAN)').fill('GB82 WEST 1234 5698 7654 33');
  await page.getByLabel('Account holder').fill('Verify Me Ltd');
  await page.getByLabel('USDC wallet address').fill('0x52908400098527886E0F7030069857D2E4169EE7');
  await page.getByRole('button', { name: 'Submit for review' }).click();
  await page.getByRole('alert').waitFor();
  const iban = page.getByLabel('Bank account (IBAN)');
  expect(await iban.getAttribute('aria-invalid')).toBe('true');
  expect(await page.locator('#payout_bank_iban-error').textContent()).toContain('valid IBAN');
  expect(await page.getByLabel('Legal name').inputValue()).toBe('Verify Me Ltd'); // values kept
  await screenshot(page, 'dashboard-verification-error');
  await iban.fill('GB82 WEST 1234 5698 7654 32');
  await page.getByRole('button', { name: 'Submit for review' }).click();
  expect(await page.getByTestId('verification-status').textContent()).toBe('pending');
  await screenshot(page, 'dashboard-verification-pending');
  // The pending page refreshes itself; wait for the workflow's decision.
  await page.getByTestId('verification-status').filter({ hasText: /^verified$/ }).waitFor({ timeout: 60_000 });
  await screenshot(page, 'dashboard-verification-verified');

  await page.getByRole('button', { name: 'Switch to live' }).click();
  expect(await page.getByTestId('mode').textContent()).toBe('Live mode');
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Name').fill('Live server');
  await page.getByRole('button', { name: 'Create key' }).click();
  const live = await page.getByLabel(/Secret key/).inputValue();
  expect(live).toMatch(/^sk_live_/);
  const res = await call(api.url, 'POST', '/v1/payments', { key: live, body: { amount: 1000, currency: 'USD' } });
  expect(res.status).toBe(200);
  expect(res.body.livemode).toBe(true);
  await page.getByRole('link', { name: 'Payments' }).click();
  await page.getByTestId('payment-row').filter({ hasText: res.body.id }).waitFor();
  await page.close();
});

it('creates a scoped key and revokes it; the revoked key gets 401', async () => {
  const page = await browser.newPage();
  await signUp(page, 'Keys Ltd');
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Name').fill('Read only');
  for (const scope of ['payments:write', 'payment_links:read', 'payment_links:write', 'events:read', 'webhooks:read', 'webhooks:write']) {
    await page.getByLabel(scope).uncheck();
  }
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = await page.getByLabel(/Secret key/).inputValue();
  await screenshot(page, 'dashboard-key-created');
  expect((await call(api.url, 'GET', '/v1/payments', { key: secret })).status).toBe(200);
  const write = await call(api.url, 'POST', '/v1/payments', { key: secret, body: { amount: 100, currency: 'EUR' } });
  expect(write.status).toBe(403);
  expect(write.body.error.code).toBe('insufficient_scope');

  await page.goto(dash('/keys'));
  expect(await page.content()).not.toContain(secret);
  const row = page.getByTestId('key-row').filter({ hasText: 'Read only' });
  expect(await row.textContent()).toContain(`${secret.slice(0, 8)}…${secret.slice(-4)}`);
  await row.getByRole('button', { name: /Revoke/ }).click();
  expect(await page.getByTestId('key-row').filter({ hasText: 'Read only' }).textContent()).toContain('Revoked');
  await screenshot(page, 'dashboard-key-revoked');
  const after = await call(api.url, 'GET', '/v1/payments', { key: secret });
  expect(after.status).toBe(401);
  expect(after.body.error.type).toBe('authentication_error');
  await page.close();
});

it('signs in by keyboard on a phone-sized screen without horizontal scrolling', async () => {
  const email = uniqueEmail('mobile');
  const setup = await browser.newPage();
  await signUp(setup, 'Mobile Ltd', email);
  await setup.close();
  const page = await browser.newPage({ viewport: { width: 375, height: 740 } });
  await page.goto(dash('/signin'));
  await page.getByLabel('E-mail').focus();
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type('not the password');
  await page.keyboard.press('Enter');
  expect(await page.getByRole('alert').textContent()).toContain('Incorrect e-mail or password.');
  await page.getByLabel('Password').focus();
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Payments' }).waitFor();
  for (const path of ['/payments', '/keys', '/verification']) {
    await page.goto(dash(path));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect({ path, overflow: overflow <= 0 }).toEqual({ path, overflow: true });
  }
  await screenshot(page, 'dashboard-mobile-verification');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.goto(dash('/payments'));
  expect(new URL(page.url()).pathname).toMatch(/\/dashboard\/signin$/);
  await page.close();
});
