import { ApiKeyCache } from '../../src/http/api-key-cache';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities';
import type { Config } from '../../src/config';
import { createDb, type Db } from '../../src/db/pool';
import { createAccount } from '../../src/domain/accounts';
import { getPaymentById, type PaymentRow } from '../../src/domain/payments';
import type { AppServices } from '../../src/http/context';
import { createLogger } from '../../src/logger';
import { SANDBOX_FAILING_IBAN } from '../../src/processor/sandbox';
import { cancelPayment, createPayment, respondToChallenge, submitAttempt, toAttempt, type CheckoutInput } from '../../src/payments/service';
import { paymentStateQuery, paymentWorkflowId } from '../../src/temporal/contract';
import { testConfig } from '../support/stack';
import { createTimeSkippingEnv } from '../support/time-skipping';

/**
 * Every payment path in Temporal's time-skipping environment, with the real activities
 * writing to the real test PostgreSQL. Days of timers pass in moments.
 */
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
let db: Db;
let config: Config;
let services: AppServices;
let accountId: string;

beforeAll(async () => {
  // Production-like sandbox delays: 30 s USDC, 180 s SEPA, 10 s settlement — all skipped.
  // The time-skipping server has no custom search attributes.
  config = testConfig({ TEMPORAL_SEARCH_ATTRIBUTES: 'false', TEMPORAL_TASK_QUEUE: 'payment-workflow-test', SANDBOX_USDC_CONFIRM_SECONDS: '30', SANDBOX_SEPA_CONFIRM_SECONDS: '180', SANDBOX_SETTLEMENT_SECONDS: '10' });
  db = createDb(process.env.TEST_DATABASE_URL!, 5);
  accountId = (await createAccount(db.pool, 'Workflow test merchant')).id;
});
afterAll(async () => {
  await db?.close();
});

// A fresh time-skipping server per test: each test's clock starts at the real time, like the
// stored expires_at, and one test's skipped days never leak into the next.
beforeEach(async () => {
  env = await createTimeSkippingEnv();
  const logger = createLogger('silent');
  // Not started: without its listener the key cache is bypassed, and these tests never authenticate.
  services = { config, db, temporal: env.client, logger, apiKeys: new ApiKeyCache({ databaseUrl: process.env.TEST_DATABASE_URL!, pool: db.pool, logger }) };
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: config.temporal.taskQueue,
    workflowsPath: require.resolve('../../workflows'),
    activities: createActivities({ db, config, temporal: env.client, logger, clock: () => new Date() }),
  });
  running = worker.run();
});
afterEach(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
});

async function newPayment(overrides: { amount?: number; currency?: string; payoutType?: 'bank' | 'wallet'; payoutCurrency?: string; account?: string } = {}): Promise<PaymentRow> {
  const after: Array<() => Promise<void>> = [];
  const row = await db.withTransaction((tx) =>
    createPayment(services, tx, (fn) => after.push(fn), {
      accountId: overrides.account ?? accountId,
      livemode: false,
      amount: overrides.amount ?? 1000,
      currency: overrides.currency ?? 'USD',
      payoutType: overrides.payoutType ?? 'bank',
      payoutCurrency: overrides.payoutCurrency ?? overrides.currency ?? 'USD',
      methods: ['card', 'apple_pay', 'google_pay', 'usdc', 'sepa'],
      metadata: {},
    }),
  );
  for (const fn of after) await fn();
  return row;
}

const pay = async (row: PaymentRow, input: CheckoutInput) => submitAttempt(services, (await getPaymentById(db.pool, row.id))!, toAttempt(row, input));
const handle = (row: PaymentRow) => env.client.workflow.getHandle(paymentWorkflowId(row.id));
const stored = async (row: PaymentRow) => (await getPaymentById(db.pool, row.id))!;

async function events(row: PaymentRow): Promise<string[]> {
  const { rows } = await db.query(
    `SELECT type FROM events WHERE data->'object'->>'id' = $1 OR data->'object'->>'payment' = $1 ORDER BY id`,
    [row.id],
  );
  return rows.map((r) => r.type);
}

const CREATED = ['payment.created', 'payment.requires_action'];
const SUCCESS_TAIL = ['payment.processing', 'payment.succeeded', 'payout.paid'];

describe('card', () => {
  it('succeeds without a challenge, then settles and pays out', async () => {
    const row = await newPayment();
    const after = await pay(row, { method: 'card', card_number: '4242424242424242' });
    expect(after.status).toBe('succeeded');
    expect(await handle(row).result()).toBe('succeeded');
    const final = await stored(row);
    expect(final).toMatchObject({ status: 'succeeded', payout_status: 'paid', payment_method: { type: 'card', brand: 'visa', last4: '4242' }, last_payment_error: null });
    expect(await events(row)).toEqual([...CREATED, ...SUCCESS_TAIL]);
  });

  it('completes an approved challenge', async () => {
    const row = await newPayment();
    const challenged = await pay(row, { method: 'card', card_number: '4000002760003184' });
    expect(challenged).toMatchObject({ status: 'requires_action', next_action: { type: 'challenge' } });
    const approved = await respondToChallenge(services, challenged, 'approve');
    expect(approved.status).toBe('succeeded');
    expect(await handle(row).result()).toBe('succeeded');
    expect(await events(row)).toEqual([...CREATED, 'payment.processing', 'payment.requires_action', ...SUCCESS_TAIL]);
  });

  it('fails a failed challenge with authentication_failed, and a retry succeeds', async () => {
    const row = await newPayment();
    const challenged = await pay(row, { method: 'card', card_number: '4000002760003184' });
    const failed = await respondToChallenge(services, challenged, 'fail');
    expect(failed).toMatchObject({ status: 'requires_action', next_action: null, last_payment_error: { code: 'authentication_failed' } });
    await pay(row, { method: 'card', card_number: '4242424242424242' });
    expect(await handle(row).result()).toBe('succeeded');
    expect(await events(row)).toEqual([...CREATED, 'payment.processing', 'payment.requires_action', 'payment.failed', ...SUCCESS_TAIL]);
  });

  it('times out an unanswered challenge after 10 minutes with authentication_timeout', async () => {
    const row = await newPayment();
    await pay(row, { method: 'card', card_number: '4000002760003184' });
    const before = await env.currentTimeMs();
    await env.sleep('9 minutes');
    expect((await handle(row).query(paymentStateQuery)).phase).toBe('awaiting_challenge');
    await env.sleep('2 minutes');
    let state = await handle(row).query(paymentStateQuery);
    for (let i = 0; i < 50 && state.phase !== 'awaiting_payer'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      state = await handle(row).query(paymentStateQuery);
    }
    expect(state.phase).toBe('awaiting_payer');
    expect((await env.currentTimeMs()) - before).toBeGreaterThanOrEqual(10 * 60 * 1000);
    expect(await stored(row)).toMatchObject({ status: 'requires_action', last_payment_error: { code: 'authentication_timeout' } });
    expect(await events(row)).toEqual([...CREATED, 'payment.processing', 'payment.requires_action', 'payment.failed']);
  });

  it.each([
    ['4000000000000002', { code: 'card_declined', decline_code: 'generic_decline' }],
    ['4000000000009995', { code: 'card_declined', decline_code: 'insufficient_funds' }],
    ['4000000000000069', { code: 'expired_card' }],
    ['4000000000000127', { code: 'incorrect_cvc' }],
  ])('declines %s, then a retry with 4242 succeeds', async (card, error) => {
    const row = await newPayment();
    const declined = await pay(row, { method: 'card', card_number: card });
    expect(declined).toMatchObject({ status: 'requires_action', last_payment_error: error });
    if (!('decline_code' in error)) expect(declined.last_payment_error).not.toHaveProperty('decline_code');
    const retried = await pay(row, { method: 'card', card_number: '4242424242424242' });
    expect(retried).toMatchObject({ status: 'succeeded', last_payment_error: null });
    expect(await handle(row).result()).toBe('succeeded');
    expect(await events(row)).toEqual([...CREATED, 'payment.processing', 'payment.failed', 'payment.requires_action', ...SUCCESS_TAIL]);
  });

  it('retries a processor error three times, then fails the attempt with processing_error', async () => {
    const row = await newPayment();
    const failed = await pay(row, { method: 'card', card_number: '4000000000000119' });
    expect(failed).toMatchObject({ status: 'requires_action', last_payment_error: { code: 'processing_error' } });
    const ledger = await db.query('SELECT calls FROM sandbox_processor_requests WHERE idempotency_key = $1', [`${paymentWorkflowId(row.id)}-attempt-1-authorize`]);
    expect(ledger.rows[0].calls).toBe(3);
    expect(await events(row)).toEqual([...CREATED, 'payment.processing', 'payment.failed', 'payment.requires_action']);
  });
});

describe('wallets and transfers', () => {
  it('approves and declines in the wallet sheet', async () => {
    const row = await newPayment();
    const declined = await pay(row, { method: 'apple_pay', wallet: 'decline' });
    expect(declined).toMatchObject({ status: 'requires_action', last_payment_error: { code: 'wallet_declined' } });
    const approved = await pay(row, { method: 'google_pay', wallet: 'approve' });
    expect(approved).toMatchObject({ status: 'succeeded', payment_method: { type: 'google_pay' } });
    expect(await handle(row).result()).toBe('succeeded');
  });

  it.each([
    ['sepa', 180_000],
    ['usdc', 30_000],
  ] as const)('confirms a %s transfer after its sandbox delay', async (method, delayMs) => {
    const row = await newPayment({ currency: 'EUR' });
    const processing = await pay(row, { method });
    expect(processing).toMatchObject({ status: 'processing', payment_method: { type: method } });
    const before = await env.currentTimeMs();
    expect(await handle(row).result()).toBe('succeeded');
    expect((await env.currentTimeMs()) - before).toBeGreaterThanOrEqual(delayMs);
    expect(await stored(row)).toMatchObject({ status: 'succeeded', payout_status: 'paid' });
    expect(await events(row)).toEqual([...CREATED, ...SUCCESS_TAIL]);
  });

  it('fails a returned SEPA transfer back to requires_action', async () => {
    const row = await newPayment({ currency: 'EUR' });
    await pay(row, { method: 'sepa', outcome: 'return' });
    await env.sleep('4 minutes');
    let current = await stored(row);
    for (let i = 0; i < 50 && current.status !== 'requires_action'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      current = await stored(row);
    }
    expect(current).toMatchObject({ status: 'requires_action', last_payment_error: { code: 'transfer_returned' } });
    expect(await events(row)).toEqual([...CREATED, 'payment.processing', 'payment.failed', 'payment.requires_action']);
  });
});

describe('expiry and cancel', () => {
  it('cancels the payment when the 24 h checkout expires', async () => {
    const row = await newPayment();
    const before = await env.currentTimeMs();
    expect(await handle(row).result()).toBe('canceled');
    expect((await env.currentTimeMs()) - before).toBeGreaterThanOrEqual(24 * 3600 * 1000 - 60_000);
    expect(await stored(row)).toMatchObject({ status: 'canceled', cancellation_reason: 'expired' });
    expect(await events(row)).toEqual([...CREATED, 'payment.canceled']);
  });

  it('cancels on the merchant’s request', async () => {
    const row = await newPayment();
    const canceled = await cancelPayment(services, row);
    expect(canceled).toMatchObject({ status: 'canceled', cancellation_reason: 'requested_by_merchant' });
    expect(await handle(row).result()).toBe('canceled');
    expect(await events(row)).toEqual([...CREATED, 'payment.canceled']);
  });
});

describe('settlement', () => {
  it('converts USD to EUR with the fixed sandbox rate and records it', async () => {
    const row = await newPayment({ amount: 1000, currency: 'USD', payoutCurrency: 'EUR' });
    await pay(row, { method: 'card', card_number: '4242424242424242' });
    await handle(row).result();
    const payout = (await db.query('SELECT * FROM payouts WHERE payment_id = $1', [row.id])).rows[0];
    expect(payout).toMatchObject({ amount: 926, currency: 'EUR', source_amount: 1000, source_currency: 'USD', fx_rate: '0.925926', status: 'paid', destination_type: 'bank' });
    const event = (await db.query(`SELECT data FROM events WHERE type = 'payout.paid' AND data->'object'->>'payment' = $1`, [row.id])).rows[0];
    expect(event.data.object).toMatchObject({ amount: 926, currency: 'eur', status: 'paid', payment: row.id, fx_rate: '0.925926' });
  });

  it('pays a wallet in USDC (6 decimals) from EUR', async () => {
    const row = await newPayment({ amount: 2000, currency: 'EUR', payoutType: 'wallet', payoutCurrency: 'USDC' });
    await pay(row, { method: 'card', card_number: '4242424242424242' });
    await handle(row).result();
    const payout = (await db.query('SELECT amount, currency, fx_rate, destination_type FROM payouts WHERE payment_id = $1', [row.id])).rows[0];
    expect(payout).toEqual({ amount: 21_600_000, currency: 'USDC', fx_rate: '1.080000', destination_type: 'wallet' });
  });

  it('records payout.failed when the bank rejects the payout', async () => {
    const failing = (await createAccount(db.pool, 'Closed bank account')).id;
    await db.query('UPDATE accounts SET payout_bank = $2 WHERE id = $1', [failing, { iban: SANDBOX_FAILING_IBAN, holder: 'Closed' }]);
    const row = await newPayment({ account: failing });
    await pay(row, { method: 'card', card_number: '4242424242424242' });
    expect(await handle(row).result()).toBe('succeeded');
    expect(await stored(row)).toMatchObject({ status: 'succeeded', payout_status: 'failed' });
    expect((await db.query('SELECT status, failure_code FROM payouts WHERE payment_id = $1', [row.id])).rows[0]).toEqual({ status: 'failed', failure_code: 'account_closed' });
    expect(await events(row)).toEqual([...CREATED, 'payment.processing', 'payment.succeeded', 'payout.failed']);
  });
});
