import { serializeEvent, type EventRow } from '../src/domain/events';
import { uuidV7Bounds } from '../src/ids';
import type { AttemptOutcome, WebhookDeliveryStatus } from '../src/temporal/webhooks';
import { WEBHOOK_TIMEOUT_MS } from '../src/temporal/webhooks';
import { dispatchDeps, dispatchEvents } from '../src/webhooks/dispatch';
import { activeSecrets, disableEndpointGone, ensureDelivery, getEndpointById, recordAttempt, updateDeliveryStatus } from '../src/webhooks/repository';
import { sendWebhook } from '../src/webhooks/send';
import { SIGNATURE_HEADER, signPayload } from '../src/webhooks/signature';
import type { ActivityDeps } from './index';

export const EVENT_RETENTION_DAYS = 30;
export const IDEMPOTENCY_KEY_RETENTION_HOURS = 24;
/** Events younger than this are left to the dispatch that follows their commit. */
export const SWEEP_GRACE_SECONDS = 30;
const BATCH = 1000;

/** Webhook delivery and maintenance activities. Spread into createActivities. */
export function createWebhookActivities(deps: ActivityDeps) {
  // The pool satisfies Queryable; every statement here is its own transaction.
  const db = deps.db.pool;
  return {
    /** Creates (idempotently) the delivery record; null when the event was purged meanwhile. */
    async prepareWebhookDelivery(input: { workflowId: string; eventId: string; endpointId: string; replay: boolean }): Promise<{ deliveryId: string } | null> {
      const { rows } = await db.query('SELECT 1 FROM events WHERE id = $1', [input.eventId]);
      if (rows.length === 0) return null;
      const delivery = await ensureDelivery(db, input);
      return { deliveryId: delivery.id };
    },

    /** One POST of the Event object, recorded whatever happens. */
    async attemptWebhookDelivery(input: { deliveryId: string; eventId: string; endpointId: string; attempt: number; scheduledAtMs: number }): Promise<AttemptOutcome> {
      const endpoint = await getEndpointById(db, input.endpointId);
      if (!endpoint || endpoint.disabled) return 'endpoint_unavailable';
      const { rows } = await db.query<EventRow>('SELECT id, account_id, livemode, type, data, created_at FROM events WHERE id = $1', [input.eventId]);
      if (rows.length === 0) return 'endpoint_unavailable';
      const body = JSON.stringify(serializeEvent(rows[0]));
      const now = deps.clock();
      const secrets = await activeSecrets(db, endpoint.id, now);
      const headers = {
        'Content-Type': 'application/json',
        'User-Agent': 'PaymentService-Webhooks/1',
        [SIGNATURE_HEADER]: signPayload(body, secrets, Math.floor(now.getTime() / 1000)),
      };
      const res = await sendWebhook({ url: endpoint.url, headers, body, timeoutMs: WEBHOOK_TIMEOUT_MS, publicOnly: endpoint.livemode });
      await recordAttempt(db, {
        delivery_id: input.deliveryId,
        attempt_number: input.attempt,
        scheduled_at: new Date(input.scheduledAtMs),
        attempted_at: now,
        request_url: endpoint.url,
        request_headers: headers,
        request_body: body,
        response_status: res.status,
        response_headers: res.headers,
        response_body: res.body,
        duration_ms: res.durationMs,
        error: res.error,
      });
      const outcome: AttemptOutcome = res.status !== null && res.status >= 200 && res.status < 300 ? 'succeeded' : res.status === 410 ? 'gone' : 'failed';
      if (outcome === 'gone') await disableEndpointGone(db, endpoint.id);
      // The url is the merchant's own; secrets and signatures are never logged.
      deps.logger.info({ deliveryId: input.deliveryId, attempt: input.attempt, status: res.status, error: res.error, outcome }, 'webhook attempt');
      return outcome;
    },

    async setWebhookDeliveryStatus(input: { deliveryId: string; status: WebhookDeliveryStatus; nextAttemptAtMs: number | null }): Promise<void> {
      await updateDeliveryStatus(db, input.deliveryId, input.status, input.nextAttemptAtMs === null ? null : new Date(input.nextAttemptAtMs));
    },

    /** The at-least-once net: events committed but never dispatched (a crash between commit and start). */
    async sweepUndispatchedEvents(): Promise<number> {
      const bound = uuidV7Bounds(Math.floor(deps.clock().getTime() / 1000) - SWEEP_GRACE_SECONDS).min;
      let total = 0;
      for (let i = 0; i < 10; i++) {
        const { rows } = await db.query('SELECT id FROM events WHERE dispatched_at IS NULL AND id < $1 ORDER BY id LIMIT $2', [bound, BATCH]);
        if (rows.length === 0) break;
        await dispatchEvents(dispatchDeps(deps), rows.map((r) => r.id));
        total += rows.length;
        if (rows.length < BATCH) break;
      }
      return total;
    },

    /** Events are kept 30 days; their deliveries and attempts go with them (ON DELETE CASCADE). */
    async purgeExpiredEvents(): Promise<number> {
      const bound = uuidV7Bounds(Math.floor(deps.clock().getTime() / 1000) - EVENT_RETENTION_DAYS * 86400).min;
      let total = 0;
      // Batches keep each transaction (and its locks) short; at most 20 per run (100,000 events),
      // so a run stays well inside its activity timeout and a large backlog is purged over minutes.
      for (let batch = 0; batch < 20; batch++) {
        const { rowCount } = await db.query('DELETE FROM events WHERE id IN (SELECT id FROM events WHERE id < $1 ORDER BY id LIMIT 5000)', [bound]);
        total += rowCount ?? 0;
        if (!rowCount) break;
      }
      await db.query('DELETE FROM webhook_endpoint_secrets WHERE expires_at <= $1', [deps.clock()]);
      return total;
    },

    /** Idempotency keys are kept 24 h (decisions §7). The table may not exist yet in this schema. */
    async purgeIdempotencyKeys(): Promise<number | null> {
      const { rows } = await db.query(
        `SELECT to_regclass('idempotency_keys') IS NOT NULL AND EXISTS (
           SELECT 1 FROM information_schema.columns
           WHERE table_schema = current_schema() AND table_name = 'idempotency_keys' AND column_name = 'created_at') AS present`,
      );
      if (!rows[0].present) return null;
      const { rowCount } = await db.query(`DELETE FROM idempotency_keys WHERE created_at < $1::timestamptz - interval '${IDEMPOTENCY_KEY_RETENTION_HOURS} hours'`, [deps.clock()]);
      return rowCount ?? 0;
    },
  };
}
