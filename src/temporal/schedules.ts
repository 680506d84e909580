import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { MAINTENANCE_SCHEDULE_ID, MAINTENANCE_WORKFLOW } from './webhooks';

/**
 * Creates the Temporal Schedules the service relies on, once. Called by every worker at start-up;
 * an existing schedule is left as it is (the first worker's task queue wins), so several workers
 * starting together are harmless.
 */
export async function ensureSchedules(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: MAINTENANCE_SCHEDULE_ID,
      spec: { intervals: [{ every: '1 minute' }] },
      action: { type: 'startWorkflow', workflowType: MAINTENANCE_WORKFLOW, taskQueue, args: [], workflowExecutionTimeout: '10 minutes' },
      // A slow run (a big purge) is not stacked up behind.
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    });
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return;
    throw err;
  }
}
