import type { ChildProcess } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { createEndpoint } from '../../src/webhooks/repository';
import { dispatchEvents } from '../../src/webhooks/dispatch';
import { insertEvent, type EventRow } from '../../src/domain/events';
import { newUuid, publicId } from '../../src/ids';
import { killTree, startTsx } from '../support/processes';
import { startReceiver, waitFor } from '../support/receiver';
import { closeTestDb, createMerchant, testDb } from '../support/stack';

const taskQueue = `webhook-crash-${newUuid()}`;
let connection: Connection;
let client: Client;
let worker: ChildProcess | undefined;

function workerEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: process.env.TEST_DATABASE_URL!,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
    TEMPORAL_TASK_QUEUE: taskQueue,
    LOG_LEVEL: 'info',
    MIGRATE_ON_START: 'false',
  };
}

/** kill -9 the worker and its node child: no graceful shutdown, in-flight activities are lost. */
async function crash(child: ChildProcess): Promise<void> {
  const pids = killTree(child);
  await waitFor(() => pids.every((pid) => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }), { what: 'the killed worker to disappear' });
}

beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  client = new Client({ connection });
});
afterAll(async () => {
  if (worker) await crash(worker);
  await connection?.close();
  await closeTestDb();
});

it('delivers every event after the worker is killed with deliveries pending', async () => {
  // Each event's first attempt fails, so every delivery sits in its 5 s retry timer when the worker dies.
  const seen = new Map<string, number>();
  const receiver = await startReceiver((req) => {
    const id = JSON.parse(req.body).id as string;
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    return { status: n === 1 ? 503 : 200 };
  });
  try {
    const m = await createMerchant();
    const { endpoint } = await createEndpoint(testDb().pool, { accountId: m.accountId, livemode: false, url: receiver.url, enabledEvents: ['*'] });
    const dispatch = (ids: string[]) => dispatchEvents({ db: testDb(), temporal: client, taskQueue }, ids);
    const emit = () => testDb().withTransaction((tx) => insertEvent(tx, { accountId: m.accountId, livemode: false, type: 'payment.succeeded', object: { id: newUuid(), amount: 500, currency: 'eur', status: 'succeeded' } }));

    worker = await startTsx('src/worker.ts', workerEnv(), 'worker running');
    const before: EventRow[] = [];
    for (let i = 0; i < 5; i++) before.push(await emit());
    await dispatch(before.map((e) => e.id));
    await waitFor(() => before.every((e) => seen.get(publicId('event', e.id)) === 1), { timeoutMs: 60_000, what: 'first attempts' });
    await crash(worker);
    worker = undefined;

    // While no worker runs: more events, whose workflows start but cannot progress.
    const during: EventRow[] = [];
    for (let i = 0; i < 3; i++) during.push(await emit());
    await dispatch(during.map((e) => e.id));
    // Let the retry timers of the first batch fire with nobody to run them.
    await new Promise((r) => setTimeout(r, 7_000));
    expect(before.every((e) => seen.get(publicId('event', e.id)) === 1)).toBe(true);

    worker = await startTsx('src/worker.ts', workerEnv(), 'worker running');
    const all = [...before, ...during];
    await waitFor(
      async () => {
        const { rows } = await testDb().query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'succeeded'", [endpoint.id]);
        return rows[0].n === all.length;
      },
      { timeoutMs: 90_000, intervalMs: 500, what: 'every delivery to succeed' },
    );
    for (const e of all) expect(seen.get(publicId('event', e.id))).toBeGreaterThanOrEqual(2);
    const { rows } = await testDb().query(
      'SELECT d.event_id, d.attempt_count, count(a.*)::int AS recorded FROM webhook_deliveries d JOIN webhook_delivery_attempts a ON a.delivery_id = d.id WHERE d.endpoint_id = $1 GROUP BY d.id',
      [endpoint.id],
    );
    expect(rows).toHaveLength(all.length);
    for (const r of rows) expect(r.recorded).toBe(r.attempt_count);
  } finally {
    await receiver.close();
  }
}, 240_000);
