import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

// Short timeouts on purpose: the Schedule skips a minute while a run is still open, so an activity
// lost with a killed worker (or a restarting server) would otherwise hold every sweep back for the
// whole timeout. With 5 minutes here, a chaos run saw events wait more than 4 minutes for the sweep.
const { startUnstartedPayments, sweepUndispatchedEvents, startStalledVerifications } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', maximumAttempts: 3 },
});
// Purges delete in bounded batches per run (the next minute goes on), so a minute is plenty.
const { purgeExpiredEvents, purgeIdempotencyKeys } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
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
