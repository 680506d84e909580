import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities';
import { createAccount } from '../../src/domain/accounts';
import { insertEvent } from '../../src/domain/events';
import { createDb, type Db } from '../../src/db/pool';
import { newUuid } from '../../src/ids';
import { createLogger } from '../../src/logger';
import { nominalRetryDelayMs, RETRY_WINDOW_MS, type WebhookDeliveryInput } from '../../src/temporal/webhooks';
import { activeSecrets, createEndpoint, rotateSecret, type AttemptRow } from '../../src/webhooks/repository';
import { verifyServiceSignature } from '../../src/webhooks/signature';
import { webhookDeliveryWorkflow } from '../../workflows';
import { startReceiver, type Reply } from '../support/receiver';
import { testConfig } from '../support/stack';
import { createTimeSkippingEnv } from '../support/time-skipping';

const DAY = 24 * 3600 * 1000;
let env: TestWorkflowEnvironment;
let db: Db;
let bundle: WorkflowBundleWithSourceMap;
let accountId: string;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  env = await createTimeSkippingEnv();
  db = createDb(process.env.TEST_DATABASE_URL!, 5);
  bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} } as any });
  accountId = (await createAccount(db.pool, 'Time-skipping merchant')).id;
});
afterAll(async () => {
  await env?.teardown();
  await db?.close();
});

/** Runs one delivery workflow against a real receiver, real PostgreSQL and real activities. */
async function deliver(reply: (elapsedMs: number, index: number) => Reply, opts: { rotate?: boolean } = {}) {
  let firstAt: number | undefined;
  const receiver = await startReceiver(async (_req, index) => {
    // The test server's clock: it stands still while the activity runs, so this is the attempt's time.
    const now = await env.currentTimeMs();
    firstAt ??= now;
    return reply(now - firstAt, index);
  });
  try {
    const { endpoint } = await createEndpoint(db.pool, { accountId, livemode: false, url: receiver.url, enabledEvents: ['*'] });
    if (opts.rotate) await rotateSecret(db.pool, endpoint.id);
    const event = await insertEvent(db.pool, { accountId, livemode: false, type: 'payment.succeeded', object: { id: newUuid(), amount: 1999, currency: 'eur', status: 'succeeded' } });
    const taskQueue = `webhook-ts-${newUuid()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities: createActivities({ db, config: testConfig(), temporal: env.client, logger: createLogger('silent'), clock: () => new Date() }),
    });
    const input: WebhookDeliveryInput = { eventId: event.id, endpointId: endpoint.id };
    const workflowId = `webhook-delivery-test-${newUuid()}`;
    const result = await worker.runUntil(env.client.workflow.execute(webhookDeliveryWorkflow, { args: [input], taskQueue, workflowId }));
    const { rows: [delivery] } = await db.query('SELECT * FROM webhook_deliveries WHERE workflow_id = $1', [workflowId]);
    const { rows: attempts } = await db.query<AttemptRow>('SELECT * FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY attempt_number', [delivery.id]);
    const { rows: [endpointAfter] } = await db.query('SELECT disabled, disabled_reason FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
    return { result, delivery, attempts, receiver, endpoint, endpointAfter };
  } finally {
    await receiver.close();
  }
}

/** Each gap between planned attempt times is the nominal backoff ±10 % (plus the real time the attempt itself took). */
function expectScheduleGaps(attempts: AttemptRow[]) {
  for (let i = 1; i < attempts.length; i++) {
    const gap = attempts[i].scheduled_at.getTime() - attempts[i - 1].scheduled_at.getTime();
    const nominal = nominalRetryDelayMs(i);
    expect(gap).toBeGreaterThanOrEqual(nominal * 0.9);
    expect(gap).toBeLessThanOrEqual(nominal * 1.1 + 2_000 + attempts[i - 1].duration_ms);
  }
}

it('keeps retrying for 3 days, then delivers, on the documented schedule', async () => {
  const { result, delivery, attempts, receiver } = await deliver((elapsed) => (elapsed < 3 * DAY ? { status: 503 } : { status: 200 }));
  expect(result.status).toBe('succeeded');
  expect(delivery.status).toBe('succeeded');
  expect(attempts.length).toBe(result.attempts);
  expect(receiver.requests.length).toBe(attempts.length);
  expectScheduleGaps(attempts);
  const first = attempts[0].scheduled_at.getTime();
  // Every attempt but the last fell inside the 3 failing days; the last one is the first after.
  for (const a of attempts.slice(0, -1)) expect(a.scheduled_at.getTime() - first).toBeLessThan(3 * DAY);
  expect(attempts.at(-1)!.scheduled_at.getTime() - first).toBeGreaterThanOrEqual(3 * DAY);
  expect(attempts.at(-1)!.response_status).toBe(200);
  expect(attempts.slice(0, -1).every((a) => a.response_status === 503)).toBe(true);
  // 15 attempts reach ~22.75 h, then one every 12 h (±10 %): 19 or 20 attempts in all.
  expect(attempts.length).toBeGreaterThanOrEqual(19);
  expect(attempts.length).toBeLessThanOrEqual(21);
});

it('gives up after the last attempt that starts within 7 days, and marks the delivery failed', async () => {
  const { result, delivery, attempts } = await deliver(() => ({ status: 500, body: 'x'.repeat(100 * 1024) }));
  expect(result.status).toBe('failed');
  expect(delivery.status).toBe('failed');
  expect(delivery.attempt_count).toBe(attempts.length);
  expectScheduleGaps(attempts);
  const span = attempts.at(-1)!.scheduled_at.getTime() - attempts[0].scheduled_at.getTime();
  expect(span).toBeLessThanOrEqual(RETRY_WINDOW_MS);
  // The next wait (12 h, at most +10 %) would have crossed the window: no attempt was given up early.
  expect(span + nominalRetryDelayMs(attempts.length) * 1.1).toBeGreaterThan(RETRY_WINDOW_MS);
  expect(attempts.length).toBeGreaterThanOrEqual(25);
  // Response bodies are kept up to 64 KiB.
  expect(attempts[0].response_body!.length).toBe(64 * 1024);
});

it('stops at a 410 and disables the endpoint', async () => {
  const { result, delivery, attempts, endpointAfter } = await deliver((_e, index) => (index === 0 ? { status: 500 } : { status: 410 }));
  expect(result).toEqual({ status: 'failed', attempts: 2 });
  expect(delivery.status).toBe('failed');
  expect(attempts.map((a) => a.response_status)).toEqual([500, 410]);
  expect(endpointAfter).toEqual({ disabled: true, disabled_reason: 'gone' });
});

it('counts a receiver that takes longer than 10 s as a failed attempt', async () => {
  const { result, attempts } = await deliver((_e, index) => (index === 0 ? { status: 200, delayMs: 12_000 } : { status: 200 }));
  expect(result).toEqual({ status: 'succeeded', attempts: 2 });
  expect(attempts[0].response_status).toBeNull();
  expect(attempts[0].error).toMatch(/timed out/);
  expect(attempts[0].duration_ms).toBeGreaterThanOrEqual(9_900);
  expect(attempts[0].duration_ms).toBeLessThan(12_000);
  expect(attempts[1].response_status).toBe(200);
});

it('signs with both secrets during a rotation, and records the request', async () => {
  const { result, attempts, receiver, endpoint } = await deliver(() => ({ status: 204 }), { rotate: true });
  expect(result.status).toBe('succeeded');
  const secrets = await activeSecrets(db.pool, endpoint.id, new Date());
  expect(secrets).toHaveLength(2);
  const req = receiver.requests[0];
  const header = req.headers['service-signature'] as string;
  expect(header.match(/v1=/g)).toHaveLength(2);
  for (const secret of secrets) expect(verifyServiceSignature({ payload: req.body, header, secret })).toBe(true);
  expect(req.headers['content-type']).toBe('application/json');
  expect(attempts[0].request_body).toBe(req.body);
  expect(attempts[0].request_headers['Service-Signature']).toBe(header);
  expect(attempts[0].request_url).toBe(receiver.url);
});
