import { sleep } from '@temporalio/workflow';

/**
 * A workflow that only waits. It is the yardstick for the Temporal start-rate
 * baseline in the benchmarks and the smallest proof that durable timers work.
 */
export async function idleWorkflow(waitMs: number): Promise<string> {
  await sleep(waitMs);
  return 'woke';
}
