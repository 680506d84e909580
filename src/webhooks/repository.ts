import type { Queryable } from '../db/pool';
import { newUuid, publicId, uuidV7Seconds } from '../ids';
import { generateSigningSecret } from './signature';

/** How long a rotated-out secret keeps signing beside the new one (decisions §5). */
export const ROTATION_OVERLAP_HOURS = 24;

export interface EndpointRow {
  id: string;
  account_id: string;
  livemode: boolean;
  url: string;
  description: string | null;
  enabled_events: string[];
  disabled: boolean;
  disabled_reason: string | null;
  created_at: Date;
}

// Never `*`: the secrets live in another table, and endpoint queries name their columns.
const ENDPOINT_COLUMNS = 'id, account_id, livemode, url, description, enabled_events, disabled, disabled_reason, created_at';

export function serializeEndpoint(e: EndpointRow, secret?: string) {
  return {
    id: publicId('webhookEndpoint', e.id),
    object: 'webhook_endpoint' as const,
    url: e.url,
    enabled_events: e.enabled_events,
    description: e.description,
    disabled: e.disabled,
    disabled_reason: e.disabled_reason,
    livemode: e.livemode,
    created: uuidV7Seconds(e.id),
    ...(secret !== undefined ? { secret } : {}),
  };
}

export async function createEndpoint(
  tx: Queryable,
  input: { accountId: string; livemode: boolean; url: string; enabledEvents: string[]; description?: string | null },
): Promise<{ endpoint: EndpointRow; secret: string }> {
  const id = newUuid();
  const { rows } = await tx.query(
    `INSERT INTO webhook_endpoints (id, account_id, livemode, url, description, enabled_events, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, now()) RETURNING ${ENDPOINT_COLUMNS}`,
    [id, input.accountId, input.livemode, input.url, input.description ?? null, input.enabledEvents],
  );
  const secret = generateSigningSecret();
  await tx.query('INSERT INTO webhook_endpoint_secrets (id, endpoint_id, secret, created_at) VALUES ($1, $2, $3, now())', [newUuid(), id, secret]);
  return { endpoint: rows[0], secret };
}

export async function getEndpoint(db: Queryable, accountId: string, livemode: boolean, id: string, opts: { forUpdate?: boolean } = {}): Promise<EndpointRow | null> {
  const { rows } = await db.query(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND account_id = $2 AND livemode = $3 AND deleted_at IS NULL${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [id, accountId, livemode],
  );
  return rows[0] ?? null;
}

/** For the worker: the endpoint by id whatever its account, or null once deleted. */
export async function getEndpointById(db: Queryable, id: string): Promise<EndpointRow | null> {
  const { rows } = await db.query(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND deleted_at IS NULL`, [id]);
  return rows[0] ?? null;
}

export async function listEndpoints(db: Queryable, f: { accountId: string; livemode: boolean; cursor?: string; limit: number }): Promise<{ items: EndpointRow[]; hasMore: boolean }> {
  const params: unknown[] = [f.accountId, f.livemode, f.limit + 1];
  let cursor = '';
  if (f.cursor) {
    params.push(f.cursor);
    cursor = ' AND id < $4';
  }
  const { rows } = await db.query(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 AND livemode = $2 AND deleted_at IS NULL${cursor} ORDER BY id DESC LIMIT $3`,
    params,
  );
  return { items: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

export async function updateEndpoint(
  tx: Queryable,
  id: string,
  patch: { url?: string; enabledEvents?: string[]; description?: string | null; disabled?: boolean },
): Promise<EndpointRow> {
  const sets: string[] = [];
  const params: unknown[] = [id];
  const set = (col: string, value: unknown) => {
    params.push(value);
    sets.push(`${col} = $${params.length}`);
  };
  if (patch.url !== undefined) set('url', patch.url);
  if (patch.enabledEvents !== undefined) set('enabled_events', patch.enabledEvents);
  if (patch.description !== undefined) set('description', patch.description);
  if (patch.disabled !== undefined) {
    set('disabled', patch.disabled);
    set('disabled_reason', patch.disabled ? 'merchant' : null);
  }
  const { rows } = await tx.query(
    sets.length ? `UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}` : `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1`,
    params,
  );
  return rows[0];
}

export async function deleteEndpoint(tx: Queryable, id: string): Promise<void> {
  await tx.query('UPDATE webhook_endpoints SET deleted_at = now(), disabled = true WHERE id = $1', [id]);
  // A deleted endpoint never signs again: drop its secrets now rather than keep them around.
  await tx.query('DELETE FROM webhook_endpoint_secrets WHERE endpoint_id = $1', [id]);
}

/** Called when a receiver answers 410 Gone. */
export async function disableEndpointGone(db: Queryable, id: string): Promise<void> {
  await db.query("UPDATE webhook_endpoints SET disabled = true, disabled_reason = 'gone' WHERE id = $1", [id]);
}

/** New current secret; the previous current one keeps signing for 24 h. */
export async function rotateSecret(tx: Queryable, endpointId: string): Promise<string> {
  await tx.query(
    `UPDATE webhook_endpoint_secrets SET expires_at = now() + interval '${ROTATION_OVERLAP_HOURS} hours' WHERE endpoint_id = $1 AND expires_at IS NULL`,
    [endpointId],
  );
  await tx.query('DELETE FROM webhook_endpoint_secrets WHERE endpoint_id = $1 AND expires_at <= now()', [endpointId]);
  const secret = generateSigningSecret();
  await tx.query('INSERT INTO webhook_endpoint_secrets (id, endpoint_id, secret, created_at) VALUES ($1, $2, $3, now())', [newUuid(), endpointId, secret]);
  return secret;
}

/** Every secret that signs right now, newest first. */
export async function activeSecrets(db: Queryable, endpointId: string, at: Date): Promise<string[]> {
  const { rows } = await db.query(
    'SELECT secret FROM webhook_endpoint_secrets WHERE endpoint_id = $1 AND (expires_at IS NULL OR expires_at > $2) ORDER BY id DESC',
    [endpointId, at],
  );
  return rows.map((r) => r.secret as string);
}

/** Enabled endpoints of the event's account and mode that subscribe to its type. */
/**
 * Which endpoints receive an event: same account and mode, live (not deleted or disabled), subscribed
 * to the type, and registered before the event happened (a sweep must not send a new endpoint the
 * backlog; a replay passes NULL as the time and may target any current endpoint).
 */
export function endpointMatchesSql(endpoint: string, event: { account: string; livemode: string; type: string; createdAt: string }): string {
  return `${endpoint}.account_id = ${event.account} AND ${endpoint}.livemode = ${event.livemode}
    AND ${endpoint}.deleted_at IS NULL AND NOT ${endpoint}.disabled
    AND ('*' = ANY (${endpoint}.enabled_events) OR ${event.type} = ANY (${endpoint}.enabled_events))
    AND (${event.createdAt}::timestamptz IS NULL OR ${endpoint}.created_at <= ${event.createdAt})`;
}

export async function endpointsForEvent(
  db: Queryable,
  event: { account_id: string; livemode: boolean; type: string; created_at: Date },
  opts: { includeNewer?: boolean } = {},
): Promise<EndpointRow[]> {
  const { rows } = await db.query(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints w
     WHERE ${endpointMatchesSql('w', { account: '$1', livemode: '$2', type: '$3', createdAt: '$4' })}
     ORDER BY id`,
    [event.account_id, event.livemode, event.type, opts.includeNewer ? null : event.created_at],
  );
  return rows;
}

/** Every (not yet dispatched event, matching endpoint) pair among these events, in one query. */
export async function undispatchedDeliveryPairs(db: Queryable, eventIds: string[]): Promise<Array<{ event_id: string; event_type: string; endpoint_id: string }>> {
  const { rows } = await db.query(
    `SELECT e.id AS event_id, e.type AS event_type, w.id AS endpoint_id
       FROM events e
       JOIN webhook_endpoints w ON ${endpointMatchesSql('w', { account: 'e.account_id', livemode: 'e.livemode', type: 'e.type', createdAt: 'e.created_at' })}
      WHERE e.id = ANY ($1::uuid[]) AND e.dispatched_at IS NULL
      ORDER BY e.id, w.id`,
    [eventIds],
  );
  return rows;
}

// ---- deliveries and attempts ----

export interface DeliveryRow {
  id: string;
  workflow_id: string;
  event_id: string;
  endpoint_id: string;
  replay: boolean;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  attempt_count: number;
  next_attempt_at: Date | null;
  created_at: Date;
  completed_at: Date | null;
}

export interface AttemptRow {
  id: string;
  delivery_id: string;
  attempt_number: number;
  scheduled_at: Date;
  attempted_at: Date;
  request_url: string;
  request_headers: Record<string, string>;
  request_body: string;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  duration_ms: number;
  error: string | null;
}

/** Idempotent: the workflow calls it first, and a retried activity finds the same row. */
export async function ensureDelivery(db: Queryable, input: { workflowId: string; eventId: string; endpointId: string; replay: boolean }): Promise<DeliveryRow> {
  await db.query(
    `INSERT INTO webhook_deliveries (id, workflow_id, event_id, endpoint_id, replay, created_at)
     VALUES ($1, $2, $3, $4, $5, now()) ON CONFLICT (workflow_id) DO NOTHING`,
    [newUuid(), input.workflowId, input.eventId, input.endpointId, input.replay],
  );
  const { rows } = await db.query('SELECT * FROM webhook_deliveries WHERE workflow_id = $1', [input.workflowId]);
  return rows[0];
}

export async function recordAttempt(db: Queryable, a: Omit<AttemptRow, 'id'>): Promise<void> {
  // Upsert: a retried activity (worker crash after the POST) overwrites its own attempt row.
  await db.query(
    `INSERT INTO webhook_delivery_attempts (id, delivery_id, attempt_number, scheduled_at, attempted_at, request_url, request_headers, request_body,
       response_status, response_headers, response_body, duration_ms, error)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (delivery_id, attempt_number) DO UPDATE SET attempted_at = EXCLUDED.attempted_at, request_url = EXCLUDED.request_url,
       request_headers = EXCLUDED.request_headers, request_body = EXCLUDED.request_body, response_status = EXCLUDED.response_status,
       response_headers = EXCLUDED.response_headers, response_body = EXCLUDED.response_body, duration_ms = EXCLUDED.duration_ms, error = EXCLUDED.error`,
    [newUuid(), a.delivery_id, a.attempt_number, a.scheduled_at, a.attempted_at, a.request_url, a.request_headers, a.request_body,
      a.response_status, a.response_headers, a.response_body, a.duration_ms, a.error],
  );
  await db.query('UPDATE webhook_deliveries SET attempt_count = GREATEST(attempt_count, $2) WHERE id = $1', [a.delivery_id, a.attempt_number]);
}

export async function updateDeliveryStatus(db: Queryable, id: string, status: DeliveryRow['status'], nextAttemptAt: Date | null): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET status = $2, next_attempt_at = $3, completed_at = CASE WHEN $2 = 'pending' THEN NULL ELSE now() END WHERE id = $1`,
    [id, status, nextAttemptAt],
  );
}

/** An event's deliveries (API, dashboard) or an endpoint's (dashboard), newest first, with their attempts. */
export async function listDeliveries(
  db: Queryable,
  f: ({ eventId: string; endpointId?: undefined } | { endpointId: string; eventId?: undefined }) & { cursor?: string; limit: number },
): Promise<{ items: (DeliveryRow & { attempts: AttemptRow[] })[]; hasMore: boolean }> {
  const params: unknown[] = [f.eventId ?? f.endpointId, f.limit + 1];
  if (f.cursor) params.push(f.cursor);
  const { rows } = await db.query(
    `SELECT * FROM webhook_deliveries WHERE ${f.eventId !== undefined ? 'event_id' : 'endpoint_id'} = $1${f.cursor ? ' AND id < $3' : ''} ORDER BY id DESC LIMIT $2`,
    params,
  );
  const items = rows.slice(0, f.limit) as DeliveryRow[];
  const attempts = items.length
    ? (await db.query('SELECT * FROM webhook_delivery_attempts WHERE delivery_id = ANY ($1) ORDER BY attempt_number', [items.map((d) => d.id)])).rows as AttemptRow[]
    : [];
  return { items: items.map((d) => ({ ...d, attempts: attempts.filter((a) => a.delivery_id === d.id) })), hasMore: rows.length > f.limit };
}

const seconds = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

export function serializeDelivery(d: DeliveryRow & { attempts: AttemptRow[] }) {
  return {
    id: publicId('webhookDelivery', d.id),
    object: 'webhook_delivery' as const,
    event: publicId('event', d.event_id),
    endpoint: publicId('webhookEndpoint', d.endpoint_id),
    workflow_id: d.workflow_id,
    replay: d.replay,
    status: d.status,
    attempt_count: d.attempt_count,
    next_attempt_at: seconds(d.next_attempt_at),
    created: seconds(d.created_at)!,
    completed_at: seconds(d.completed_at),
    attempts: d.attempts.map((a) => ({
      id: publicId('deliveryAttempt', a.id),
      object: 'webhook_delivery_attempt' as const,
      attempt: a.attempt_number,
      created: seconds(a.attempted_at)!,
      scheduled_at: seconds(a.scheduled_at)!,
      request: { url: a.request_url, headers: a.request_headers, body: a.request_body },
      response: a.response_status === null ? null : { status: a.response_status, headers: a.response_headers ?? {}, body: a.response_body ?? '' },
      duration_ms: a.duration_ms,
      error: a.error,
    })),
  };
}
