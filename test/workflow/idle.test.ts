import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { idleWorkflow } from '../../workflows';
import { createTimeSkippingEnv } from '../support/time-skipping';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

// Typically ~0.3 s of wall time; the bound is loose so a loaded CI machine cannot flake it,
// and still proves the 3 days were skipped rather than waited.
it('crosses a 3-day durable timer in a moment of wall time', async () => {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'idle-test',
    workflowsPath: require.resolve('../../workflows'),
  });
  const threeDays = 3 * 24 * 3600 * 1000;
  await worker.runUntil(async () => {
    const before = await env.currentTimeMs();
    const startedWall = Date.now();
    const result = await env.client.workflow.execute(idleWorkflow, { args: [threeDays], taskQueue: 'idle-test', workflowId: `idle-${Date.now()}` });
    const wallMs = Date.now() - startedWall;
    expect(result).toBe('woke');
    expect((await env.currentTimeMs()) - before).toBeGreaterThanOrEqual(threeDays);
    expect(wallMs).toBeLessThan(5000);
  });
});
