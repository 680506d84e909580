import http from 'node:http';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities';
import { createAccount } from '../../src/domain/accounts';
import { insertEvent, type EventType } from '../../src/domain/events';
import { createDb, type Db } from '../../src/db/pool';
import { newUuid, publicId } from '../../src/ids';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { webhookDeliveryWorkflowId } from '../../src/temporal/webhooks';
import { dispatchEvents } from '../../src/webhooks/dispatch';
import { createEndpoint } from '../../src/webhooks/repository';
import { freePort } from '../support/ports';

import { createTimeSkippingEnv } from '../support/time-skipping';

/**
 * A webhook receiver that is down for 2 days of workflow time, with the real delivery workflow,
 * real activities, real PostgreSQL and real HTTP, on the time-skipping test server. While it is
 * down it drops every connection without an answer, as a dead host behind a load balancer would.
 * When it returns, every event is delivered.
 */
const DAY = 24 * 3600 * 1000;
const EVENTS = 12;
const pgUrl = process.env.TEST_DATABASE_URL!;
let db: Db;
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  db = createDb(pgUrl, 5);
  env = await createTimeSkippingEnv();
});

afterAll(async () => {
  await env?.teardown();
  await db?.close();
});

it('delivers every event once a receiver that was down for 2 days of workflow time returns', async () => {
  const downUntil = (await env.currentTimeMs()) + 2 * DAY;
  const arrivals = new Map<string, number[]>();
  let refused = 0;
  const receiver = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    // The test server's clock stands still while the delivery activity runs.
    const now = await env.currentTimeMs();
    if (now < downUntil) {
      refused++;
      req.socket.destroy();
      return;
    }
    const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id;
    arrivals.set(id, [...(arrivals.get(id) ?? []), now]);
    res.writeHead(200).end('ok');
  });
  const port = await freePort();
  await new Promise<void>((r) => receiver.listen(port, '127.0.0.1', () => r()));

  try {
    const account = await createAccount(db.pool, 'Outage merchant');
    const { endpoint } = await createEndpoint(db.pool, { accountId: account.id, livemode: false, url: `http://127.0.0.1:${port}/hooks`, enabledEvents: ['*'] });
    const types: EventType[] = ['payment.created', 'payment.requires_action', 'payment.processing', 'payment.succeeded'];
    const events: Array<Awaited<ReturnType<typeof insertEvent>>> = [];
    for (let i = 0; i < EVENTS; i++) {
      events.push(await insertEvent(db.pool, { accountId: account.id, livemode: false, type: types[i % types.length], object: { id: newUuid(), amount: 1000 + i, currency: 'eur' } }));
    }

    const taskQueue = `outage-${newUuid()}`;
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: pgUrl,
      TEMPORAL_ADDRESS: 'unused:7233',
      TEMPORAL_TASK_QUEUE: taskQueue,
      TEMPORAL_SEARCH_ATTRIBUTES: 'false',
      LOG_LEVEL: 'silent',
    });
    // As the API does after its commit: one call starts a delivery workflow per (event, endpoint).
    await dispatchEvents({ db, temporal: env.client, taskQueue, searchAttributes: false }, events.map((e) => e.id));
    const { rows: undispatched } = await db.query('SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND dispatched_at IS NULL', [account.id]);
    expect(undispatched[0].n).toBe(0);

    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowsPath: require.resolve('../../workflows'),
      activities: createActivities({ db, config, temporal: env.client, logger: createLogger('silent'), clock: () => new Date() }),
    });
    const progress = setInterval(() => process.stdout.write(`[outage] refused ${refused}, delivered ${arrivals.size}/${EVENTS}\n`), 5000);
    // One result() at a time: each lets the test server skip time while it waits, and all the
    // workflows move on together (concurrent waits on the time-skipping lock stalled here).
    const results = await worker.runUntil(async () => {
      const out: Array<{ status: string }> = [];
      for (const e of events) out.push(await env.client.workflow.getHandle(webhookDeliveryWorkflowId(publicId('event', e.id), publicId('webhookEndpoint', endpoint.id))).result());
      return out;
    });

    clearInterval(progress);
    expect(results.map((r) => r.status)).toEqual(events.map(() => 'succeeded'));
    expect(refused).toBeGreaterThanOrEqual(EVENTS * 10); // ~19 attempts each within 2 days
    for (const e of events) {
      const got = arrivals.get(publicId('event', e.id));
      expect(got?.length).toBeGreaterThanOrEqual(1);
      expect(got![0]).toBeGreaterThanOrEqual(downUntil);
      // The retry cap is 12 h (±10 %): delivered within one interval of the receiver's return.
      expect(got![0] - downUntil).toBeLessThanOrEqual(13.2 * 3600 * 1000 + 60_000);
    }
    const { rows: deliveries } = await db.query(
      `SELECT d.status, count(a.*)::int AS attempts FROM webhook_deliveries d JOIN webhook_delivery_attempts a ON a.delivery_id = d.id
        WHERE d.endpoint_id = $1 GROUP BY d.id, d.status`,
      [endpoint.id],
    );
    expect(deliveries).toHaveLength(EVENTS);
    for (const d of deliveries) {
      expect(d.status).toBe('succeeded');
      expect(d.attempts).toBeGreaterThan(10);
    }
  } finally {
    await new Promise<void>((r) => receiver.close(() => r()));
  }
});
