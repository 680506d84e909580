import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { startUnstartedPayments, sweepUndispatchedEvents, purgeExpiredEvents, purgeIdempotencyKeys, startStalledVerifications } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', maximumAttempts: 3 },
});

/**
 * Run every minute by the `maintenance` Schedule (src/temporal/schedules.ts): starts payment
 * workflows, verification reviews and deliveries that a crash left unstarted, and applies the retention of events (30 days) and idempotency keys (24 h).
 */
export async function maintenanceWorkflow(): Promise<{ startedPayments: number; swept: number; purgedEvents: number; purgedIdempotencyKeys: number | null; stalledVerifications: number }> {
  const startedPayments = await startUnstartedPayments(30);
  const swept = await sweepUndispatchedEvents();
  const purgedEvents = await purgeExpiredEvents();
  const purgedIdempotencyKeys = await purgeIdempotencyKeys();
  const stalledVerifications = await startStalledVerifications(30);
  return { startedPayments, swept, purgedEvents, purgedIdempotencyKeys, stalledVerifications };
}
