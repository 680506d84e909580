import type { Browser } from 'playwright-core';
import type { RunningApi } from '../../src/api';
import { launchBrowser, screenshot } from '../support/browser';
import { call, closeTestDb, createMerchant, startTestApi, type TestMerchant } from '../support/stack';

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

it('a payer opens a payment link, pays with 4242, and the payment succeeds with its payment_link', async () => {
  const link = await call(api.url, 'POST', '/v1/payment-links', { key: merchant.testKey, body: { title: 'Yoga class', amount: 1500, currency: 'GBP', methods: ['card'] } });
  expect(link.status).toBe(200);
  const page = await browser.newPage();
  await page.goto(link.body.url);
  await page.getByText('Yoga class').first().waitFor();
  expect(await page.textContent('body')).toContain('£15.00');
  await screenshot(page, 'payment-link');
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  await page.getByLabel('Card number').waitFor();
  const paymentId = /\/checkout\/(pmt_[0-9a-f-]+)/.exec(page.url())?.[1];
  expect(paymentId).toBeDefined();
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByLabel('Expiry (MM/YY)').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: 'Pay £15.00' }).click();
  await page.getByText('Payment successful').waitFor();
  await screenshot(page, 'payment-link-success');
  const payment = await call(api.url, 'GET', `/v1/payments/${paymentId}`, { key: merchant.testKey });
  expect(payment.body).toMatchObject({ status: 'succeeded', amount: 1500, currency: 'GBP', payment_link: link.body.id });
  await page.close();
});
