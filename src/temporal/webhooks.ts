/**
 * Contract for webhook delivery and maintenance workflows, shared by the API, the worker, the
 * workflows and the tests. Imports nothing, so workflow code may use it.
 */

export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';
export const MAINTENANCE_WORKFLOW = 'maintenanceWorkflow';
export const MAINTENANCE_SCHEDULE_ID = 'maintenance';

/** One workflow per (event, endpoint): `webhook-delivery-evt_…-we_…` (decisions §5). */
export function webhookDeliveryWorkflowId(eventPublicId: string, endpointPublicId: string): string {
  return `webhook-delivery-${eventPublicId}-${endpointPublicId}`;
}

/**
 * A replay is a new delivery of the same pair, so it needs its own id: the pair's id plus
 * `-replay-<uuid>`. The original id stays reserved for the first delivery.
 */
export function webhookReplayWorkflowId(eventPublicId: string, endpointPublicId: string, replayUuid: string): string {
  return `${webhookDeliveryWorkflowId(eventPublicId, endpointPublicId)}-replay-${replayUuid}`;
}

export interface WebhookDeliveryInput {
  /** Bare UUIDs. */
  eventId: string;
  endpointId: string;
  replay?: boolean;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';

export interface WebhookDeliveryResult {
  status: Exclude<WebhookDeliveryStatus, 'pending'>;
  attempts: number;
}

/** What one attempt came to. */
export type AttemptOutcome =
  | 'succeeded' // 2xx within the timeout
  | 'failed' // anything else: retry on the schedule
  | 'gone' // 410: stop and disable the endpoint
  | 'endpoint_unavailable'; // deleted or disabled meanwhile: stop

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const RETRY_BASE_MS = 5_000;
export const RETRY_CAP_MS = 12 * 3600 * 1000;
export const RETRY_WINDOW_MS = 7 * 24 * 3600 * 1000;
export const RETRY_JITTER = 0.1;

/** The nominal wait after attempt n (1-based) before attempt n+1: min(5 s × 2^(n−1), 12 h). */
export function nominalRetryDelayMs(attempt: number): number {
  return Math.min(RETRY_BASE_MS * 2 ** (attempt - 1), RETRY_CAP_MS);
}

/** The nominal delay with ±10 % jitter; `random` is in [0, 1) (Math.random, replay-safe inside workflows). */
export function retryDelayMs(attempt: number, random: number): number {
  return Math.round(nominalRetryDelayMs(attempt) * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random));
}
