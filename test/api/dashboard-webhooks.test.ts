import type { RunningApi } from '../../src/api';
import { DashboardClient, uniqueEmail } from '../support/dashboard';
import { startReceiver, waitFor } from '../support/receiver';
import { call, closeTestDb, startTestApi, testDb } from '../support/stack';

let api: RunningApi;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  api = await startTestApi();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await api.close();
  await closeTestDb();
});

/** A signed-up account with one endpoint, one (test) event and one payment link, made through the dashboard's forms. */
async function accountWithData(tag: string) {
  const client = new DashboardClient(api.url);
  const key = await client.signUp(uniqueEmail(tag));
  const csrf = await client.csrf('/webhooks');
  const created = await client.post('/webhooks', { _csrf: csrf, url: receiver.url, enabled_events: '*', description: tag });
  expect(created.status).toBe(201);
  const secret = /value="(whsec_[^"]+)"/.exec(created.text)![1];
  const endpointId = /href="[^"]*\/webhooks\/(we_[^"]+)"/.exec(created.text)![1];
  expect((await client.post(`/webhooks/${endpointId}/test-event`, { _csrf: csrf })).status).toBe(303);
  const events = await client.get('/events');
  const eventId = /href="[^"]*\/events\/(evt_[^"]+)"/.exec(events.text)![1];
  expect((await client.post('/payment-links', { _csrf: csrf, title: 'Link', amount: '10', currency: 'USD' })).status).toBe(303);
  const linkId = /\/payment-links\/(plink_[^/"]+)\/deactivate/.exec((await client.get('/payment-links')).text)![1];
  return { client, key, csrf, secret, endpointId, eventId, linkId };
}

const secretCount = async (endpointId: string) =>
  (await testDb().query('SELECT count(*)::int AS n FROM webhook_endpoint_secrets WHERE endpoint_id = $1', [endpointId.slice('we_'.length)])).rows[0].n as number;

it('the webhook, event and payment link forms refuse a missing or wrong CSRF token with 403 and change nothing', async () => {
  const a = await accountWithData('csrf-hooks');
  const forms: Array<[string, Record<string, string>]> = [
    ['/webhooks', { url: receiver.url, enabled_events: '*' }],
    [`/webhooks/${a.endpointId}`, { url: receiver.url, enabled_events: 'payout.paid', description: 'changed' }],
    [`/webhooks/${a.endpointId}/disable`, {}],
    [`/webhooks/${a.endpointId}/enable`, {}],
    [`/webhooks/${a.endpointId}/rotate-secret`, {}],
    [`/webhooks/${a.endpointId}/test-event`, {}],
    [`/webhooks/${a.endpointId}/delete`, {}],
    [`/events/${a.eventId}/replay`, { endpoint_id: a.endpointId }],
    ['/payment-links', { title: 'x', amount: '1', currency: 'USD' }],
    [`/payment-links/${a.linkId}/deactivate`, {}],
  ];
  for (const [path, form] of forms) {
    const missing = await a.client.post(path, form);
    expect([path, missing.status]).toEqual([path, 403]);
    const wrong = await a.client.post(path, { ...form, _csrf: 'x'.repeat(43) });
    expect([path, wrong.status]).toEqual([path, 403]);
  }
  // Nothing changed: one endpoint, as it was, with its one secret; one link, still active; one event.
  const endpoints = await call(api.url, 'GET', '/v1/webhook-endpoints', { key: a.key });
  expect(endpoints.body.data.items).toHaveLength(1);
  expect(endpoints.body.data.items[0]).toMatchObject({ id: a.endpointId, enabled_events: ['*'], description: 'csrf-hooks', disabled: false });
  expect(await secretCount(a.endpointId)).toBe(1);
  expect((await call(api.url, 'GET', '/v1/payment-links', { key: a.key })).body.data.items.map((l: { active: boolean }) => l.active)).toEqual([true]);
  expect((await call(api.url, 'GET', '/v1/events', { key: a.key })).body.data.items).toHaveLength(1);
});

it("another account's endpoint, event and link are 404 on every page and form, and the secret is never rendered again", async () => {
  const a = await accountWithData('owner');
  const b = await accountWithData('other');
  for (const path of [`/webhooks/${a.endpointId}`, `/events/${a.eventId}`, '/webhooks/we_not-an-id', '/events/evt_0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e']) {
    const res = await b.client.get(path);
    expect([path, res.status]).toEqual([path, 404]);
    expect(res.text).toMatch(/(Endpoint|Event) not found/);
  }
  for (const [path, form] of [
    [`/webhooks/${a.endpointId}`, { url: receiver.url, enabled_events: '*' }],
    [`/webhooks/${a.endpointId}/disable`, {}],
    [`/webhooks/${a.endpointId}/rotate-secret`, {}],
    [`/webhooks/${a.endpointId}/test-event`, {}],
    [`/webhooks/${a.endpointId}/delete`, {}],
    [`/events/${a.eventId}/replay`, { endpoint_id: a.endpointId }],
    [`/events/${b.eventId}/replay`, { endpoint_id: a.endpointId }],
    [`/events/${a.eventId}/replay`, { endpoint_id: b.endpointId }],
    [`/payment-links/${a.linkId}/deactivate`, {}],
  ] as Array<[string, Record<string, string>]>) {
    const res = await b.client.post(path, { ...form, _csrf: b.csrf });
    expect([path, res.status]).toEqual([path, 404]);
  }
  expect(await secretCount(a.endpointId)).toBe(1);
  expect((await call(api.url, 'GET', `/v1/webhook-endpoints/${a.endpointId}`, { key: a.key })).body.disabled).toBe(false);
  // The other mode is another scope too: a's sandbox endpoint is not found in live mode.
  expect((await a.client.post('/mode', { _csrf: a.csrf, mode: 'live' })).status).toBe(303);
  expect((await a.client.get(`/webhooks/${a.endpointId}`)).status).toBe(404);
  expect((await a.client.get(`/events/${a.eventId}`)).status).toBe(404);
  expect((await a.client.post('/mode', { _csrf: a.csrf, mode: 'sandbox' })).status).toBe(303);

  // The owner's own pages work and never contain the signing secret.
  for (const path of ['/webhooks', `/webhooks/${a.endpointId}`, '/events', `/events/${a.eventId}`]) {
    const res = await a.client.get(path);
    expect([path, res.status]).toEqual([path, 200]);
    expect(res.text).not.toContain(a.secret);
    expect(res.text).not.toContain('whsec_');
  }
  // Rotation reveals the new secret in its response only.
  const rotated = await a.client.post(`/webhooks/${a.endpointId}/rotate-secret`, { _csrf: a.csrf });
  expect(rotated.status).toBe(200);
  const fresh = /value="(whsec_[^"]+)"/.exec(rotated.text)![1];
  expect(fresh).not.toBe(a.secret);
  expect((await a.client.get(`/webhooks/${a.endpointId}`)).text).not.toContain('whsec_');
});

it('lists events with the type and date filters and cursor paging, replays from the event page, and needs a session', async () => {
  const a = await accountWithData('events');
  // Two more test events: three in all, newest first.
  for (let i = 0; i < 2; i++) expect((await a.client.post(`/webhooks/${a.endpointId}/test-event`, { _csrf: a.csrf })).status).toBe(303);
  const ids = (text: string) => [...text.matchAll(/data-testid="event-row"><td><a href="[^"]*\/events\/(evt_[^"]+)"/g)].map((m) => m[1]);
  const all = ids((await a.client.get('/events')).text);
  expect(all).toHaveLength(3);
  expect(all[2]).toBe(a.eventId);
  const today = new Date().toISOString().slice(0, 10);
  expect(ids((await a.client.get(`/events?type=payment.succeeded&created_after=${today}&created_before=${today}`)).text)).toEqual(all);
  expect(ids((await a.client.get('/events?type=payout.failed')).text)).toEqual([]);
  expect(ids((await a.client.get('/events?created_before=2020-01-01')).text)).toEqual([]);
  expect(ids((await a.client.get('/events?created_after=2999-01-01')).text)).toEqual([]);
  // Paging follows the "Older events" link (20 per page, so only the cursor itself is exercised here).
  expect(ids((await a.client.get(`/events?cursor=${all[0].slice('evt_'.length)}`)).text)).toEqual(all.slice(1));

  const replay = await a.client.post(`/events/${a.eventId}/replay`, { _csrf: a.csrf, endpoint_id: a.endpointId, return_to: 'event' });
  expect(replay.status).toBe(303);
  expect(replay.location).toMatch(new RegExp(`/dashboard/events/${a.eventId}$`));
  // The replay workflow records its own delivery; the event page then shows it with its workflow link.
  const replayed = await waitFor(async () => {
    const res = await call(api.url, 'GET', `/v1/events/${a.eventId}/deliveries`, { key: a.key });
    return res.body.data.items.find((d: { replay: boolean; status: string }) => d.replay && d.status === 'succeeded');
  }, { what: 'the replay delivery' });
  expect(replayed.workflow_id).toMatch(/-replay-/);
  const page = await a.client.get(`/events/${a.eventId}`);
  expect(page.text).toContain(`&quot;id&quot;: &quot;${a.eventId}&quot;`);
  expect(page.text).toContain(`/namespaces/default/workflows/${encodeURIComponent(replayed.workflow_id)}`);

  // A disabled endpoint takes no test event and no replay until it is enabled again.
  expect((await a.client.post(`/webhooks/${a.endpointId}/disable`, { _csrf: a.csrf })).status).toBe(303);
  expect((await a.client.post(`/webhooks/${a.endpointId}/test-event`, { _csrf: a.csrf })).status).toBe(409);
  expect((await a.client.post(`/events/${a.eventId}/replay`, { _csrf: a.csrf, endpoint_id: a.endpointId })).status).toBe(409);

  const anon = new DashboardClient(api.url);
  for (const path of ['/webhooks', `/webhooks/${a.endpointId}`, '/events', `/events/${a.eventId}`, '/payment-links']) {
    const res = await anon.get(path);
    expect([path, res.status]).toEqual([path, 303]);
    expect(res.location).toMatch(/\/dashboard\/signin$/);
  }
});
