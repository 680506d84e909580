import { ActivityFailure, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { RETRY_WINDOW_MS, retryDelayMs, type AttemptOutcome, type WebhookDeliveryInput, type WebhookDeliveryResult } from '../src/temporal/webhooks';

// Database bookkeeping: retried until the database is back (infrastructure failure).
const { prepareWebhookDelivery, setWebhookDeliveryStatus } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

// One attempt: the HTTP exchange itself never throws (a failed POST is an outcome, not an
// error), so an activity retry only covers a worker crash or a database hiccup while recording.
const { attemptWebhookDelivery } = proxyActivities<Activities>({
  startToCloseTimeout: '45 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
});

/**
 * Delivers one event to one endpoint (decisions §5): attempt 1 at once, then after
 * min(5 s × 2^(n−1), 12 h) ±10 %, as long as the next attempt starts within 7 days of the first.
 * Math.random is replay-safe here: the workflow sandbox seeds it per execution.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { workflowId } = workflowInfo();
  const prepared = await prepareWebhookDelivery({ workflowId, eventId: input.eventId, endpointId: input.endpointId, replay: input.replay ?? false });
  if (!prepared) return { status: 'canceled', attempts: 0 };
  const { deliveryId } = prepared;
  const firstAt = Date.now();
  for (let attempt = 1; ; attempt++) {
    let outcome: AttemptOutcome;
    try {
      outcome = await attemptWebhookDelivery({ deliveryId, eventId: input.eventId, endpointId: input.endpointId, attempt, scheduledAtMs: Date.now() });
    } catch (err) {
      // Our side kept failing (database down): count it as a failed attempt and stay on the schedule.
      if (!(err instanceof ActivityFailure)) throw err;
      outcome = 'failed';
    }
    if (outcome === 'succeeded') {
      await setWebhookDeliveryStatus({ deliveryId, status: 'succeeded', nextAttemptAtMs: null });
      return { status: 'succeeded', attempts: attempt };
    }
    if (outcome === 'gone') {
      await setWebhookDeliveryStatus({ deliveryId, status: 'failed', nextAttemptAtMs: null });
      return { status: 'failed', attempts: attempt };
    }
    if (outcome === 'endpoint_unavailable') {
      await setWebhookDeliveryStatus({ deliveryId, status: 'canceled', nextAttemptAtMs: null });
      return { status: 'canceled', attempts: attempt - 1 };
    }
    const delay = retryDelayMs(attempt, Math.random());
    const nextAt = Date.now() + delay;
    if (nextAt - firstAt > RETRY_WINDOW_MS) {
      await setWebhookDeliveryStatus({ deliveryId, status: 'failed', nextAttemptAtMs: null });
      return { status: 'failed', attempts: attempt };
    }
    await setWebhookDeliveryStatus({ deliveryId, status: 'pending', nextAttemptAtMs: nextAt });
    await sleep(delay);
  }
}
