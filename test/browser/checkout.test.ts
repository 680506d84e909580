import type { Browser } from 'playwright-core';
import type { RunningApi } from '../../src/api';
import { launchBrowser, screenshot } from '../support/browser';
import { call, closeTestDb, createMerchant, startTestApi, testDb, type TestMerchant } from '../support/stack';

let api: RunningApi;
let merchant: TestMerchant;
let browser: Browser;

beforeAll(async () => {
  api = await startTestApi();
  merchant = await createMerchant();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await api.close();
  await closeTestDb();
});

async function newPayment(body: Record<string, unknown> = {}) {
  const res = await call(api.url, 'POST', '/v1/payments', { key: merchant.testKey, body: { amount: 2500, currency: 'EUR', ...body } });
  expect(res.status).toBe(200);
  return res.body as { id: string; checkout_url: string };
}

async function payByCard(page: import('playwright-core').Page, number: string) {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry (MM/YY)').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: /^Pay €25\.00$/ }).click();
}

it('a payer pays with 4242 and sees the success', async () => {
  const payment = await newPayment({ methods: ['card', 'sepa'] });
  const page = await browser.newPage();
  await page.goto(payment.checkout_url);
  await expect(page.getByTestId('amount').textContent()).resolves.toBe('€25.00');
  // Only the methods the merchant allowed.
  await expect(page.getByText('Pay by SEPA transfer').count()).resolves.toBe(1);
  await expect(page.getByText('Pay with USDC').count()).resolves.toBe(0);
  await expect(page.getByText('Apple Pay').count()).resolves.toBe(0);
  await screenshot(page, 'checkout-card-form');
  await payByCard(page, '4242 4242 4242 4242');
  await page.getByText('Payment successful').waitFor();
  await screenshot(page, 'checkout-card-success');
  const stored = await call(api.url, 'GET', `/v1/payments/${payment.id}`, { key: merchant.testKey });
  expect(stored.body).toMatchObject({ status: 'succeeded', payment_method: { type: 'card', brand: 'visa', last4: '4242' } });
  await page.close();
});

it('a payer completes the 3184 challenge inline, on the same page', async () => {
  const payment = await newPayment();
  const page = await browser.newPage();
  await page.goto(payment.checkout_url);
  await payByCard(page, '4000 0027 6000 3184');
  await page.getByRole('heading', { name: 'Confirm this payment with your bank' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(new URL(payment.checkout_url).pathname);
  await screenshot(page, 'checkout-challenge');
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByText('Payment successful').waitFor();
  await screenshot(page, 'checkout-challenge-success');
  await page.close();
});

it('a payer is declined, sees why, and retries', async () => {
  const payment = await newPayment();
  const page = await browser.newPage();
  await page.goto(payment.checkout_url);
  await payByCard(page, '4000 0000 0000 9995');
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toContain('Your card has insufficient funds.');
  await screenshot(page, 'checkout-declined');
  await payByCard(page, '4242 4242 4242 4242');
  await page.getByText('Payment successful').waitFor();
  await page.close();
});

it('works without JavaScript, and rejects a Luhn-invalid number with a visible error', async () => {
  const payment = await newPayment();
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(payment.checkout_url);
  await payByCard(page, '4242 4242 4242 4241');
  expect(await page.getByRole('alert').textContent()).toContain('Your card number is incorrect.');
  await payByCard(page, '4242 4242 4242 4242');
  await page.getByText('Payment successful').waitFor();
  await context.close();
});

it('never stores or logs the card number', async () => {
  const { rows } = await testDb().query(
    `SELECT count(*)::int AS n FROM (
       SELECT payment_method::text AS t FROM payments UNION ALL SELECT data::text FROM events UNION ALL SELECT response::text FROM sandbox_processor_requests
     ) s WHERE t LIKE '%4242424242424242%' OR t LIKE '%4242 4242 4242 4242%'`,
  );
  expect(rows[0].n).toBe(0);
});

it('is usable on a phone-sized screen, by keyboard', async () => {
  const payment = await newPayment({ methods: ['card'] });
  const page = await browser.newPage({ viewport: { width: 375, height: 740 } });
  await page.goto(payment.checkout_url);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await page.getByLabel('Card number').focus();
  await page.keyboard.type('4242424242424242');
  await page.keyboard.press('Tab');
  await page.keyboard.type('12/34');
  await page.keyboard.press('Tab');
  await page.keyboard.type('123');
  await page.keyboard.press('Enter');
  await page.getByText('Payment successful').waitFor();
  await screenshot(page, 'checkout-mobile-success');
  await page.close();
});
