import type { RunningApi } from '../../src/api';
import { insertEvent, insertEvents, undispatchedIds, type EventType } from '../../src/domain/events';
import { newUuid, publicId } from '../../src/ids';
import { SA } from '../../src/temporal/search-attributes';
import { webhookDeliveryWorkflowId } from '../../src/temporal/webhooks';
import { dispatchEvents, startDelivery } from '../../src/webhooks/dispatch';
import { verifyServiceSignature } from '../../src/webhooks/signature';
import { startReceiver, waitFor } from '../support/receiver';
import { call, closeTestDb, createMerchant, startTestApi, testDb, type TestMerchant } from '../support/stack';

let api: RunningApi;
let merchant: TestMerchant;
const receivers: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  api = await startTestApi();
  merchant = await createMerchant({ verified: true });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await api.close();
  await closeTestDb();
});

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

/** Writes events the way the payments code does (in a transaction), then dispatches them after commit. */
async function emit(m: TestMerchant, type: EventType, opts: { livemode?: boolean; dispatch?: boolean } = {}) {
  const event = await testDb().withTransaction((tx) =>
    insertEvent(tx, { accountId: m.accountId, livemode: opts.livemode ?? false, type, object: { id: newUuid(), amount: 1250, currency: 'usd', status: type.split('.')[1] } }),
  );
  if (opts.dispatch !== false) await dispatchEvents({ db: testDb(), temporal: api.services.temporal, taskQueue: process.env.TEST_TASK_QUEUE! }, [event.id]);
  return { ...event, publicId: publicId('event', event.id) };
}

async function register(m: TestMerchant, url: string, enabled_events: string[] = ['*'], key = m.testKey) {
  const res = await call(api.url, 'POST', '/v1/webhook-endpoints', { key, body: { url, enabled_events, description: 'test' } });
  expect(res.status).toBe(200);
  return res.body as { id: string; secret: string; url: string };
}

describe('which events need dispatching after commit (insertEvents)', () => {
  const insert = (m: TestMerchant, types: EventType[], livemode = false) =>
    testDb().withTransaction((tx) => insertEvents(tx, { accountId: m.accountId, livemode, types, object: { id: newUuid(), amount: 500, currency: 'eur' } }));

  it('stores events that no endpoint wants as already dispatched, in id order', async () => {
    const m = await createMerchant();
    const events = await insert(m, ['payment.created', 'payment.requires_action']);
    expect(events.map((e) => e.type)).toEqual(['payment.created', 'payment.requires_action']);
    expect(events[0].id < events[1].id).toBe(true);
    expect(events.every((e) => e.dispatched_at !== null)).toBe(true);
    expect(undispatchedIds(events)).toEqual([]);
  });

  it('leaves for dispatchEvents exactly the events a live endpoint of the same mode subscribes to', async () => {
    const m = await createMerchant({ verified: true });
    await register(m, 'https://hooks.example.com/only-succeeded', ['payment.succeeded']);
    const events = await insert(m, ['payment.created', 'payment.succeeded']);
    expect(undispatchedIds(events)).toEqual([events[1].id]);
    // The endpoint is a sandbox one: the same events in live mode are nobody's.
    expect(undispatchedIds(await insert(m, ['payment.succeeded'], true))).toEqual([]);
  });
});

describe('delivery through the real stack', () => {
  it('POSTs the Event object, signed, to the endpoint', async () => {
    const r = await receiver();
    const endpoint = await register(merchant, r.url);
    expect(endpoint.secret).toMatch(/^whsec_/);
    const event = await emit(merchant, 'payment.succeeded');
    const req = await waitFor(() => r.requests[0], { what: 'the webhook' });
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    expect(verifyServiceSignature({ payload: req.body, header: req.headers['service-signature'] as string, secret: endpoint.secret })).toBe(true);
    const fetched = await call(api.url, 'GET', `/v1/events/${event.publicId}`, { key: merchant.testKey });
    expect(JSON.parse(req.body)).toEqual(fetched.body);
    expect(fetched.body).toMatchObject({ id: event.publicId, object: 'event', type: 'payment.succeeded', livemode: false });

    // The workflow carries its business id and search attributes.
    const handle = api.services.temporal.workflow.getHandle(webhookDeliveryWorkflowId(event.publicId, endpoint.id));
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(SA.eventId)).toBe(event.publicId);
    expect(description.typedSearchAttributes.get(SA.eventType)).toBe('payment.succeeded');
    expect(description.typedSearchAttributes.get(SA.endpointId)).toBe(endpoint.id);

    // A second dispatch (or start) of the same pair is refused, not repeated.
    await dispatchEvents({ db: testDb(), temporal: api.services.temporal, taskQueue: process.env.TEST_TASK_QUEUE! }, [event.id]);
    const again = await startDelivery({ temporal: api.services.temporal, taskQueue: process.env.TEST_TASK_QUEUE! }, event, { id: endpoint.id.slice(3) });
    expect(again.started).toBe(false);
    const deliveries = await waitFor(async () => {
      const res = await call(api.url, 'GET', `/v1/events/${event.publicId}/deliveries`, { key: merchant.testKey });
      return res.body.data.items[0]?.status === 'succeeded' ? res.body : null;
    });
    expect(deliveries.data.items).toHaveLength(1);
    expect(deliveries.data.items[0]).toMatchObject({ object: 'webhook_delivery', event: event.publicId, endpoint: endpoint.id, attempt_count: 1, replay: false });
    expect(deliveries.data.items[0].attempts[0]).toMatchObject({ attempt: 1, response: { status: 200 }, error: null, request: { url: r.url, body: req.body } });
    expect(deliveries.data.items[0].attempts[0].id).toMatch(/^wha_/);
    const { rows } = await testDb().query('SELECT dispatched_at FROM events WHERE id = $1', [event.id]);
    expect(rows[0].dispatched_at).toBeInstanceOf(Date);
  });

  it('retries after ~5 s and ~10 s, then replays on request', async () => {
    const m = await createMerchant();
    const r = await receiver((_req, index) => ({ status: index < 2 ? 500 : 200 }));
    const endpoint = await register(m, r.url);
    const event = await emit(m, 'payment.created');
    await waitFor(() => r.requests.length >= 3, { timeoutMs: 40_000, what: 'three attempts' });
    const [a, b, c] = r.requests.map((q) => q.receivedAt);
    // ±10 % jitter, plus scheduling slack on a busy 2-core machine.
    expect(b - a).toBeGreaterThanOrEqual(4_500);
    expect(b - a).toBeLessThanOrEqual(7_500);
    expect(c - b).toBeGreaterThanOrEqual(9_000);
    expect(c - b).toBeLessThanOrEqual(12_500);
    for (const q of r.requests) expect(JSON.parse(q.body).id).toBe(event.publicId);

    const replay = await call(api.url, 'POST', `/v1/events/${event.publicId}/replay`, { key: m.testKey, body: { endpoint_id: endpoint.id } });
    expect(replay.status).toBe(202);
    expect(replay.body.deliveries).toHaveLength(1);
    expect(replay.body.deliveries[0].workflow_id).toMatch(new RegExp(`^webhook-delivery-${event.publicId}-${endpoint.id}-replay-[0-9a-f-]{36}$`));
    await waitFor(() => r.requests.length >= 4, { what: 'the replayed delivery' });
    expect(JSON.parse(r.requests[3].body).id).toBe(event.publicId);
    const list = await waitFor(async () => {
      const res = await call(api.url, 'GET', `/v1/events/${event.publicId}/deliveries`, { key: m.testKey });
      return res.body.data.items.length === 2 && res.body.data.items.every((d: any) => d.status === 'succeeded') ? res.body.data.items : null;
    });
    expect(list.map((d: any) => d.replay)).toEqual([true, false]);
    expect(list[1].attempts.map((x: any) => x.response.status)).toEqual([500, 500, 200]);

    // Without endpoint_id every matching endpoint gets a replay.
    const all = await call(api.url, 'POST', `/v1/events/${event.publicId}/replay`, { key: m.testKey, body: {} });
    expect(all.status).toBe(202);
    expect(all.body.deliveries.map((d: any) => d.endpoint)).toEqual([endpoint.id]);
    await waitFor(() => r.requests.length >= 5, { what: 'the second replay' });
  });

  it('sends an endpoint only its enabled_events, and only its own account and mode', async () => {
    const m = await createMerchant();
    const other = await createMerchant();
    const onlySucceeded = await receiver();
    const everything = await receiver();
    const otherAccount = await receiver();
    await register(m, onlySucceeded.url, ['payment.succeeded']);
    await register(m, everything.url, ['*']);
    await register(other, otherAccount.url, ['*']);
    const created = await emit(m, 'payment.created');
    const succeeded = await emit(m, 'payment.succeeded');
    await waitFor(() => everything.requests.length >= 2 && onlySucceeded.requests.length >= 1, { what: 'deliveries' });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(onlySucceeded.requests.map((q) => JSON.parse(q.body).id)).toEqual([succeeded.publicId]);
    expect(everything.requests.map((q) => JSON.parse(q.body).id).sort()).toEqual([created.publicId, succeeded.publicId].sort());
    expect(otherAccount.requests).toHaveLength(0);
  });

  it('signs with the old and the new secret after a rotation', async () => {
    const m = await createMerchant();
    const r = await receiver();
    const endpoint = await register(m, r.url);
    const rotated = await call(api.url, 'POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { key: m.testKey });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    await emit(m, 'payment.processing');
    const req = await waitFor(() => r.requests[0]);
    const header = req.headers['service-signature'] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifyServiceSignature({ payload: req.body, header, secret: endpoint.secret })).toBe(true);
    expect(verifyServiceSignature({ payload: req.body, header, secret: rotated.body.secret })).toBe(true);
  });

  it('the maintenance sweep dispatches events a crash left undispatched', async () => {
    const m = await createMerchant();
    const r = await receiver();
    const endpoint = await register(m, r.url);
    // Committed but never dispatched, and older than the sweep's 30 s grace (the endpoint older still).
    await testDb().query("UPDATE webhook_endpoints SET created_at = created_at - interval '5 minutes' WHERE id = $1", [endpoint.id.slice(3)]);
    const event = await emit(m, 'payment.canceled', { dispatch: false });
    await testDb().query("UPDATE events SET id = $2, created_at = created_at - interval '2 minutes' WHERE id = $1", [event.id, shiftUuidV7(event.id, -120_000)]);
    const schedule = await api.services.temporal.schedule.getHandle('maintenance').describe();
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'maintenanceWorkflow' });
    const req = await waitFor(() => r.requests[0], { timeoutMs: 100_000, intervalMs: 500, what: 'the sweep (runs every minute)' });
    expect(JSON.parse(req.body).type).toBe('payment.canceled');
  });
});

/** The same UUIDv7 with its timestamp moved, so a test event can look older than it is. */
function shiftUuidV7(uuid: string, deltaMs: number): string {
  const hex = uuid.replace(/-/g, '');
  const ms = parseInt(hex.slice(0, 12), 16) + deltaMs;
  const h = ms.toString(16).padStart(12, '0') + hex.slice(12);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

describe('webhook endpoints API', () => {
  it('creates, lists, reads, updates and deletes; the secret is shown only on creation', async () => {
    const m = await createMerchant();
    const created = await register(m, 'http://127.0.0.1:9/a', ['payment.succeeded', 'payment.failed']);
    expect(created).toMatchObject({ object: 'webhook_endpoint', livemode: false, enabled_events: ['payment.succeeded', 'payment.failed'], disabled: false, description: 'test' });
    expect(created.id).toMatch(/^we_[0-9a-f-]{36}$/);
    const second = await register(m, 'http://127.0.0.1:9/b');
    const one = await call(api.url, 'GET', `/v1/webhook-endpoints/${created.id}`, { key: m.testKey });
    expect(one.status).toBe(200);
    expect(one.body.secret).toBeUndefined();
    const page1 = await call(api.url, 'GET', '/v1/webhook-endpoints?limit=1', { key: m.testKey });
    expect(page1.body).toMatchObject({ ok: true, data: { hasMore: true, nextCursor: second.id.slice(3) } });
    expect(page1.body.data.items.map((e: any) => e.id)).toEqual([second.id]);
    expect(page1.body.data.items[0].secret).toBeUndefined();
    const page2 = await call(api.url, 'GET', `/v1/webhook-endpoints?limit=1&cursor=${page1.body.data.nextCursor}`, { key: m.testKey });
    expect(page2.body.data).toMatchObject({ hasMore: false, nextCursor: null });
    expect(page2.body.data.items.map((e: any) => e.id)).toEqual([created.id]);

    const patched = await call(api.url, 'PATCH', `/v1/webhook-endpoints/${created.id}`, { key: m.testKey, body: { enabled_events: ['*'], disabled: true, description: null, url: 'http://localhost:9/c' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ enabled_events: ['*'], disabled: true, disabled_reason: 'merchant', description: null, url: 'http://localhost:9/c' });
    const reenabled = await call(api.url, 'PATCH', `/v1/webhook-endpoints/${created.id}`, { key: m.testKey, body: { disabled: false } });
    expect(reenabled.body).toMatchObject({ disabled: false, disabled_reason: null });

    const del = await call(api.url, 'DELETE', `/v1/webhook-endpoints/${created.id}`, { key: m.testKey });
    expect(del.body).toEqual({ id: created.id, object: 'webhook_endpoint', deleted: true });
    expect((await call(api.url, 'GET', `/v1/webhook-endpoints/${created.id}`, { key: m.testKey })).status).toBe(404);
    expect((await call(api.url, 'DELETE', `/v1/webhook-endpoints/${created.id}`, { key: m.testKey })).status).toBe(404);
    const { rows } = await testDb().query('SELECT count(*)::int AS n FROM webhook_endpoint_secrets WHERE endpoint_id = $1', [created.id.slice(3)]);
    expect(rows[0].n).toBe(0);
  });

  it.each([
    [{ enabled_events: ['*'] }, 400, 'parameter_missing', 'url'],
    [{ url: 'http://127.0.0.1:9/x' }, 400, 'parameter_missing', 'enabled_events'],
    [{ url: 'http://127.0.0.1:9/x', enabled_events: ['payment.nope'] }, 400, 'parameter_invalid', 'enabled_events'],
    [{ url: 'http://127.0.0.1:9/x', enabled_events: [] }, 400, 'parameter_invalid', 'enabled_events'],
    [{ url: 'http://127.0.0.1:9/x', enabled_events: ['*', 'payment.created'] }, 400, 'parameter_invalid', 'enabled_events'],
    [{ url: 'not a url', enabled_events: ['*'] }, 400, 'parameter_invalid', 'url'],
    [{ url: 'ftp://127.0.0.1/x', enabled_events: ['*'] }, 400, 'parameter_invalid', 'url'],
    [{ url: 'http://127.0.0.1:9/x', enabled_events: ['*'], colour: 'red' }, 400, 'parameter_unknown', 'colour'],
    [{ url: 42, enabled_events: ['*'] }, 400, 'parameter_invalid', 'url'],
  ])('rejects %j with %i %s', async (body, status, code, param) => {
    const res = await call(api.url, 'POST', '/v1/webhook-endpoints', { key: merchant.testKey, body });
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code });
    expect(res.body.error.param).toMatch(new RegExp(`^${param.replace(/[[\]]/g, '\\$&')}`));
  });

  it.each([
    ['http://93.184.216.34/hook', 'https'],
    ['https://127.0.0.1/hook', 'private'],
    ['https://10.1.2.3/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'private'],
    ['https://[::1]/hook', 'private'],
    ['https://localhost/hook', 'private'],
  ])('refuses the live endpoint %s', async (url, why) => {
    const res = await call(api.url, 'POST', '/v1/webhook-endpoints', { key: merchant.liveKey, body: { url, enabled_events: ['*'] } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'url' });
    expect(res.body.error.message).toMatch(why === 'https' ? /https/ : /private/);
  });

  it('accepts a public https live endpoint, and a loopback http sandbox one', async () => {
    const live = await register(merchant, 'https://93.184.216.34/hook', ['*'], merchant.liveKey);
    expect(live).toMatchObject({ livemode: true });
    const patched = await call(api.url, 'PATCH', `/v1/webhook-endpoints/${live.id}`, { key: merchant.liveKey, body: { url: 'https://192.168.1.1/x' } });
    expect(patched.status).toBe(400);
    expect(patched.body.error.param).toBe('url');
    // Sandbox and live never mix.
    expect((await call(api.url, 'GET', `/v1/webhook-endpoints/${live.id}`, { key: merchant.testKey })).status).toBe(404);
    await register(merchant, 'http://localhost:9/hook');
  });

  it('answers 404 for another account’s endpoint and for malformed ids', async () => {
    const m = await createMerchant();
    const other = await createMerchant();
    const endpoint = await register(m, 'http://127.0.0.1:9/x');
    for (const [method, path] of [
      ['GET', `/v1/webhook-endpoints/${endpoint.id}`],
      ['PATCH', `/v1/webhook-endpoints/${endpoint.id}`],
      ['DELETE', `/v1/webhook-endpoints/${endpoint.id}`],
      ['POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`],
      ['GET', '/v1/webhook-endpoints/we_nope'],
      ['GET', `/v1/webhook-endpoints/evt_${newUuid()}`],
    ]) {
      const res = await call(api.url, method, path, { key: other.testKey, ...(method === 'PATCH' ? { body: { disabled: true } } : {}) });
      expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 404, 'resource_missing']);
    }
  });

  it('enforces webhooks:read and webhooks:write', async () => {
    const readOnly = await createMerchant({ scopes: ['webhooks:read', 'events:read'] });
    const create = await call(api.url, 'POST', '/v1/webhook-endpoints', { key: readOnly.testKey, body: { url: 'http://127.0.0.1:9/x', enabled_events: ['*'] } });
    expect(create.status).toBe(403);
    expect(create.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
    expect((await call(api.url, 'GET', '/v1/webhook-endpoints', { key: readOnly.testKey })).status).toBe(200);
    const event = await emit(readOnly, 'payment.created');
    const replay = await call(api.url, 'POST', `/v1/events/${event.publicId}/replay`, { key: readOnly.testKey, body: {} });
    expect(replay.status).toBe(403);
    const eventsOnly = await createMerchant({ scopes: ['events:read'] });
    expect((await call(api.url, 'GET', '/v1/webhook-endpoints', { key: eventsOnly.testKey })).status).toBe(403);
    expect((await call(api.url, 'GET', `/v1/events/${event.publicId}/deliveries`, { key: eventsOnly.testKey })).status).toBe(403);
    const webhooksOnly = await createMerchant({ scopes: ['webhooks:read'] });
    expect((await call(api.url, 'GET', '/v1/events', { key: webhooksOnly.testKey })).body.error.code).toBe('insufficient_scope');
  });
});

describe('events API', () => {
  it('lists newest first with stable cursor paging and filters', async () => {
    const m = await createMerchant();
    const types: EventType[] = ['payment.created', 'payment.requires_action', 'payment.processing', 'payment.succeeded', 'payout.paid'];
    const events = [];
    for (const t of types) events.push(await emit(m, t, { dispatch: false }));
    await emit(m, 'payment.created', { livemode: true, dispatch: false }); // another mode: never listed with the sandbox key
    const ids = events.map((e) => e.publicId).reverse();

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await call(api.url, 'GET', `/v1/events?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key: m.testKey });
      expect(res.status).toBe(200);
      expect(res.body.ok).toBe(true);
      seen.push(...res.body.data.items.map((e: any) => e.id));
      cursor = res.body.data.nextCursor;
      expect(res.body.data.hasMore).toBe(cursor !== null);
      if (cursor) expect(cursor).toBe(res.body.data.items.at(-1).id.slice(4));
      // A new event while paging does not shift later pages (cursor = id < cursor).
      if (seen.length === 2) await emit(m, 'payment.failed', { dispatch: false });
    } while (cursor);
    expect(seen).toEqual(ids);

    const byType = await call(api.url, 'GET', '/v1/events?type=payment.succeeded', { key: m.testKey });
    expect(byType.body.data.items.map((e: any) => e.id)).toEqual([events[3].publicId]);
    const created = events.map((e) => Math.floor(parseInt(e.id.replace(/-/g, '').slice(0, 12), 16) / 1000));
    const inRange = await call(api.url, 'GET', `/v1/events?created_after=${created[0]}&created_before=${created[4]}&limit=100`, { key: m.testKey });
    expect(inRange.body.data.items.map((e: any) => e.id)).toEqual(expect.arrayContaining(ids));
    const before = await call(api.url, 'GET', `/v1/events?created_before=${created[0] - 1}`, { key: m.testKey });
    expect(before.body.data.items).toEqual([]);
    const after = await call(api.url, 'GET', `/v1/events?created_after=${created[4] + 1}&type=payment.created`, { key: m.testKey });
    expect(after.body.data.items).toEqual([]);
    const dflt = await call(api.url, 'GET', '/v1/events', { key: m.testKey });
    expect(dflt.body.data.items.every((e: any) => e.livemode === false)).toBe(true);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['cursor=nope', 'cursor'],
    [`cursor=evt_${'0'.repeat(8)}-0000-7000-8000-000000000000`, 'cursor'],
    ['created_after=yesterday', 'created_after'],
    ['created_before=-5', 'created_before'],
    ['created_after=1.5', 'created_after'],
    ['type=payment.nope', 'type'],
    ['colour=red', 'colour'],
  ])('answers 400 to ?%s', async (qs, param) => {
    const res = await call(api.url, 'GET', `/v1/events?${qs}`, { key: merchant.testKey });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
  });

  it('retrieves one event, and 404s across accounts and modes', async () => {
    const m = await createMerchant({ verified: true });
    const other = await createMerchant();
    const event = await emit(m, 'payment.succeeded', { dispatch: false });
    const ok = await call(api.url, 'GET', `/v1/events/${event.publicId}`, { key: m.testKey });
    expect(ok.status).toBe(200);
    expect(ok.body.data.object).toMatchObject({ amount: 1250, currency: 'usd' });
    for (const [key, path] of [
      [other.testKey, `/v1/events/${event.publicId}`],
      [m.liveKey, `/v1/events/${event.publicId}`],
      [m.testKey, `/v1/events/evt_${newUuid()}`],
      [m.testKey, '/v1/events/evt_garbage'],
      [m.testKey, `/v1/events/${event.id}`],
      [other.testKey, `/v1/events/${event.publicId}/deliveries`],
      [m.liveKey, `/v1/events/${event.publicId}/deliveries`],
    ]) {
      const res = await call(api.url, 'GET', path, { key });
      expect([path, res.status, res.body.error?.code]).toEqual([path, 404, 'resource_missing']);
    }
    const replay = await call(api.url, 'POST', `/v1/events/${event.publicId}/replay`, { key: other.testKey, body: {} });
    expect(replay.status).toBe(404);
    const badEndpoint = await call(api.url, 'POST', `/v1/events/${event.publicId}/replay`, { key: m.testKey, body: { endpoint_id: 'we_nope' } });
    expect(badEndpoint.status).toBe(404);
    const unknownField = await call(api.url, 'POST', `/v1/events/${event.publicId}/replay`, { key: m.testKey, body: { endpoint: 'x' } });
    expect(unknownField.body.error).toMatchObject({ code: 'parameter_unknown', param: 'endpoint' });
  });
});
