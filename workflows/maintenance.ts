import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { startUnstartedPayments, sweepUndispatchedEvents, purgeExpiredEvents, purgeIdempotencyKeys } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', maximumAttempts: 3 },
});

/**
 * Run every minute by the `maintenance` Schedule (src/temporal/schedules.ts): starts payment
 * workflows and deliveries that a crash left unstarted, and applies the retention of events (30 days) and idempotency keys (24 h).
 */
export async function maintenanceWorkflow(): Promise<{ startedPayments: number; swept: number; purgedEvents: number; purgedIdempotencyKeys: number | null }> {
  const startedPayments = await startUnstartedPayments(30);
  const swept = await sweepUndispatchedEvents();
  const purgedEvents = await purgeExpiredEvents();
  const purgedIdempotencyKeys = await purgeIdempotencyKeys();
  return { startedPayments, swept, purgedEvents, purgedIdempotencyKeys };
}
